//! `CredentialImporter` for OpenAI: the decoders of `import.rs` turned into storable credentials.

use async_trait::async_trait;
use gateway_core::credential_import::{CredentialImporter, ImportFailure, ImportedCredential};
use gateway_core::domain::{
    AccountProfile, CredentialDocument, CredentialFacts, CredentialState, ProviderData, ProviderKind,
};
use secrecy::ExposeSecret;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::credential::OpenAiCredential;
use crate::import::{bundle_entry, decode};
use crate::provider::OpenAiProvider;

/// Refresh this long before the access token expires (the refresh worker uses the runtime
/// setting; this is the first schedule written at import).
const FIRST_REFRESH_MARGIN: time::Duration = time::Duration::minutes(5);

#[async_trait]
impl CredentialImporter for OpenAiProvider {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    async fn decode(&self, input: &[u8]) -> Result<Vec<ImportedCredential>, ImportFailure> {
        let now = OffsetDateTime::now_utc();
        let decoded =
            decode(input, self.refresher(), now.unix_timestamp()).await.map_err(|e| ImportFailure(e.to_string()))?;
        Ok(decoded.into_iter().map(|d| imported(d.credential)).collect())
    }

    fn export_entry(
        &self,
        document: &CredentialDocument,
        profile: &AccountProfile,
    ) -> Result<serde_json::Value, ImportFailure> {
        let credential = OpenAiCredential::decode(document).map_err(|e| ImportFailure(e.to_string()))?;
        Ok(bundle_entry(&credential, profile.email.as_deref()))
    }
}

/// A credential ready to store: identity and expiry from its claims; without identity claims it
/// is stored `unverified` under a digest-based id.
pub(crate) fn imported(credential: OpenAiCredential) -> ImportedCredential {
    let identity = credential.identity();
    let expires = identity.expires_at.and_then(|e| OffsetDateTime::from_unix_timestamp(e).ok());
    let next_refresh = expires.map(|e| e - FIRST_REFRESH_MARGIN);
    let mut facts = CredentialFacts::active(expires, next_refresh);
    let external_account_id = match &identity.account_id {
        Some(id) => id.clone(),
        None => {
            facts.state = CredentialState::Unverified;
            facts.reason = Some("no_identity_claims".to_owned());
            unverified_id(&credential)
        }
    };
    ImportedCredential {
        external_account_id,
        profile: AccountProfile { email: identity.email.clone(), plan_type: identity.plan_type.clone() },
        document: credential.encode(),
        facts,
        provider_data: ProviderData::default(),
    }
}

/// A stable id for a credential without identity claims: a digest of its refresh (or access)
/// token, so the same file imported twice updates one account.
fn unverified_id(credential: &OpenAiCredential) -> String {
    let token = credential.refresh_token.as_ref().unwrap_or(&credential.access_token);
    let digest = Sha256::digest(token.expose_secret().as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("unverified-{hex}")
}

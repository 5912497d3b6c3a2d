//! `CredentialImporter` for OpenAI: the decoders of `import.rs` turned into storable credentials.

use async_trait::async_trait;
use gateway_core::credential_import::{
    CandidateContent, CredentialImporter, ExchangeFailure, ImportCandidate, ImportFailure, ImportedCredential,
    RefreshSeed, unverified_external_id,
};
use gateway_core::domain::{
    AccountProfile, CredentialDocument, CredentialFacts, CredentialState, ProviderData, ProviderKind,
};
use time::OffsetDateTime;

use crate::credential::OpenAiCredential;
use crate::import::{ParsedEntry, bundle_entry, exchange, parse};
use crate::provider::OpenAiProvider;

/// Refresh this long before the access token expires (the refresh worker uses the runtime
/// setting; this is the first schedule written at import).
const FIRST_REFRESH_MARGIN: time::Duration = time::Duration::minutes(5);

#[async_trait]
impl CredentialImporter for OpenAiProvider {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    fn parse(&self, input: &[u8]) -> Result<Vec<ImportCandidate>, ImportFailure> {
        let entries = parse(input).map_err(|e| ImportFailure(e.to_string()))?;
        Ok(entries
            .into_iter()
            .map(|(entry, parsed)| ImportCandidate {
                entry,
                content: match parsed {
                    ParsedEntry::Ready(decoded) => CandidateContent::Ready(Box::new(imported(decoded.credential))),
                    ParsedEntry::RefreshOnly(token) => {
                        CandidateContent::NeedsExchange(RefreshSeed::from_refresh_token(&token))
                    }
                },
            })
            .collect())
    }

    async fn exchange(&self, seed: RefreshSeed) -> Result<ImportedCredential, ExchangeFailure> {
        let token = seed.refresh_token().ok_or_else(|| ExchangeFailure { code: "malformed_seed".to_owned() })?;
        let now = OffsetDateTime::now_utc();
        let decoded = exchange(&token, self.refresher(), now.unix_timestamp()).await.map_err(ExchangeFailure::from)?;
        Ok(imported(decoded.credential))
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
            unverified_external_id(credential.refresh_token.as_ref(), &credential.access_token)
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

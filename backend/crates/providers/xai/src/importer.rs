//! `CredentialImporter` for xAI: the decoders of `import.rs` turned into storable credentials.
//! A refresh-only entry is exchanged once and its identity read from userinfo.

use async_trait::async_trait;
use gateway_core::credential_import::{
    CandidateContent, CredentialImporter, ExchangeFailure, ImportCandidate, ImportFailure, ImportedCredential,
    RefreshSeed,
};
use gateway_core::domain::{
    AccountProfile, CredentialDocument, CredentialFacts, CredentialState, ProviderData, ProviderKind,
};
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::credential::XaiCredential;
use crate::import::{ParsedEntry, bundle_entry, parse};
use crate::provider::XaiProvider;
use crate::refresh::RefreshError;

/// The first refresh is scheduled this long before the access token expires.
const FIRST_REFRESH_MARGIN: time::Duration = time::Duration::minutes(5);

#[async_trait]
impl CredentialImporter for XaiProvider {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Xai
    }

    fn parse(&self, input: &[u8]) -> Result<Vec<ImportCandidate>, ImportFailure> {
        let entries = parse(input).map_err(|e| ImportFailure(e.to_string()))?;
        Ok(entries
            .into_iter()
            .map(|(entry, parsed)| ImportCandidate {
                entry,
                content: match parsed {
                    ParsedEntry::Ready(credential) => CandidateContent::Ready(Box::new(imported(*credential))),
                    ParsedEntry::RefreshOnly(token) => CandidateContent::NeedsExchange(seed(&token)),
                },
            })
            .collect())
    }

    async fn exchange(&self, seed: RefreshSeed) -> Result<ImportedCredential, ExchangeFailure> {
        let token = seed_token(&seed).ok_or_else(|| ExchangeFailure { code: "malformed_seed".to_owned() })?;
        let empty = XaiCredential {
            access_token: SecretString::from(String::from("-")),
            refresh_token: Some(token),
            expires_at: None,
            user_id: None,
            email: None,
            team_id: None,
        };
        let now = OffsetDateTime::now_utc().unix_timestamp();
        let mut fresh = self.refresher().refresh(&empty, now).await.map_err(exchange_failure)?;
        let info = self.refresher().userinfo(&fresh.access_token).await.map_err(exchange_failure)?;
        fresh.user_id = Some(info.sub);
        fresh.email = info.email;
        Ok(imported(fresh))
    }

    fn export_entry(
        &self,
        document: &CredentialDocument,
        _profile: &AccountProfile,
    ) -> Result<serde_json::Value, ImportFailure> {
        let credential = XaiCredential::decode(document).map_err(|e| ImportFailure(e.to_string()))?;
        Ok(bundle_entry(&credential))
    }
}

fn exchange_failure(error: RefreshError) -> ExchangeFailure {
    ExchangeFailure {
        code: match error {
            RefreshError::Permanent { code } => code,
            RefreshError::Transient(_) => "upstream_unavailable".to_owned(),
            RefreshError::NoRefreshToken => "no_refresh_token".to_owned(),
        },
    }
}

fn seed(token: &SecretString) -> RefreshSeed {
    RefreshSeed(CredentialDocument::from_value(&serde_json::json!({"refresh_token": token.expose_secret()})))
}

fn seed_token(seed: &RefreshSeed) -> Option<SecretString> {
    let value: serde_json::Value = serde_json::from_str(seed.0.expose_json()).ok()?;
    value.get("refresh_token")?.as_str().map(|t| SecretString::from(t.to_owned()))
}

/// A credential ready to store, identified by its user id (the OIDC `sub`); without one it is
/// stored `unverified` under a digest-based id.
pub(crate) fn imported(credential: XaiCredential) -> ImportedCredential {
    let expires = credential.expires_at.and_then(|e| OffsetDateTime::from_unix_timestamp(e).ok());
    let mut facts = CredentialFacts::active(expires, expires.map(|e| e - FIRST_REFRESH_MARGIN));
    let external_account_id = match &credential.user_id {
        Some(id) => id.clone(),
        None => {
            facts.state = CredentialState::Unverified;
            facts.reason = Some("no_identity".to_owned());
            unverified_id(&credential)
        }
    };
    ImportedCredential {
        external_account_id,
        profile: AccountProfile { email: credential.email.clone(), plan_type: None },
        document: credential.encode(),
        facts,
        provider_data: ProviderData::default(),
    }
}

fn unverified_id(credential: &XaiCredential) -> String {
    let token = credential.refresh_token.as_ref().unwrap_or(&credential.access_token);
    let digest = Sha256::digest(token.expose_secret().as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("unverified-{hex}")
}

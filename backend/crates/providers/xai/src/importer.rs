//! `CredentialImporter` for xAI: the decoders of `import.rs` turned into storable credentials.
//! A refresh-only entry is exchanged once and its identity read from userinfo.

use async_trait::async_trait;
use gateway_core::credential_import::{
    CandidateContent, CredentialImporter, ExchangeFailure, ImportCandidate, ImportFailure, ImportedCredential,
    RefreshSeed, unverified_external_id,
};
use gateway_core::domain::{
    AccountProfile, CredentialDocument, CredentialFacts, CredentialState, ProviderData, ProviderKind,
};
use secrecy::SecretString;
use time::OffsetDateTime;

use crate::credential::XaiCredential;
use crate::import::{ParsedEntry, bundle_entry, parse};
use crate::provider::XaiProvider;

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
                    ParsedEntry::RefreshOnly(token) => {
                        CandidateContent::NeedsExchange(RefreshSeed::from_refresh_token(&token))
                    }
                },
            })
            .collect())
    }

    async fn exchange(&self, seed: RefreshSeed) -> Result<ImportedCredential, ExchangeFailure> {
        let token = seed.refresh_token().ok_or_else(|| ExchangeFailure { code: "malformed_seed".to_owned() })?;
        let empty = XaiCredential {
            access_token: SecretString::from(String::from("-")),
            refresh_token: Some(token),
            expires_at: None,
            user_id: None,
            email: None,
            team_id: None,
        };
        let now = OffsetDateTime::now_utc().unix_timestamp();
        let mut fresh = self.refresher().refresh(&empty, now).await.map_err(ExchangeFailure::from)?;
        let info = self.refresher().userinfo(&fresh.access_token).await.map_err(ExchangeFailure::from)?;
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
            unverified_external_id(credential.refresh_token.as_ref(), &credential.access_token)
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

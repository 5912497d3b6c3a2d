//! The provider port for bringing credentials in and out: decoding the formats users have
//! (files, token lines) into stored credentials, and writing the export bundle entry of one.
//! Admin use cases call it; each provider implements it for its own credential document.

use async_trait::async_trait;

use crate::domain::{AccountProfile, CredentialDocument, CredentialFacts, ProviderData, ProviderKind};

/// One credential ready to store, identified only by its token claims.
#[derive(Debug, Clone)]
pub struct ImportedCredential {
    /// The provider's account id from the claims; for a credential without identity claims a
    /// stable digest-based id prefixed `unverified-`, so re-importing it stays idempotent.
    pub external_account_id: String,
    pub profile: AccountProfile,
    pub document: CredentialDocument,
    /// `active`, or `unverified` when the tokens carry no identity claims.
    pub facts: CredentialFacts,
    pub provider_data: ProviderData,
}

/// Why an import or export failed; messages name the entry and never contain a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ImportFailure(pub String);

#[async_trait]
pub trait CredentialImporter: Send + Sync {
    fn provider(&self) -> ProviderKind;

    /// Decodes every credential in `input` (refresh-token-only entries are exchanged first).
    async fn decode(&self, input: &[u8]) -> Result<Vec<ImportedCredential>, ImportFailure>;

    /// The export bundle entry of one stored credential (re-importing it is idempotent).
    fn export_entry(
        &self,
        document: &CredentialDocument,
        profile: &AccountProfile,
    ) -> Result<serde_json::Value, ImportFailure>;
}

//! The provider port for bringing credentials in and out: reading the formats users have
//! (files, token lines) into stored credentials, and writing the export bundle entry of one.
//! Admin use cases call it; each provider implements it for its own credential document.
//!
//! Reading is split in two so that importing never burns a credential: [`CredentialImporter::parse`]
//! checks the shape of every entry and sends nothing anywhere (a dry run stops there), and
//! [`CredentialImporter::exchange`] spends one refresh token — single use upstream — for a fresh
//! pair, called once per entry by the import itself.

use std::fmt;

use async_trait::async_trait;
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

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

/// A refresh token alone, as read from the input: the provider's seed document for the
/// exchange. A secret (`Debug` is redacted); spend it only through
/// [`CredentialImporter::exchange`], once.
pub struct RefreshSeed(pub CredentialDocument);

impl fmt::Debug for RefreshSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RefreshSeed([REDACTED])")
    }
}

impl RefreshSeed {
    /// The seed of a refresh-only entry: `{"refresh_token": …}`, read back only by
    /// [`refresh_token`](Self::refresh_token).
    pub fn from_refresh_token(token: &SecretString) -> Self {
        Self(CredentialDocument::from_value(&serde_json::json!({"refresh_token": token.expose_secret()})))
    }

    /// The refresh token of a seed made by [`from_refresh_token`](Self::from_refresh_token).
    pub fn refresh_token(&self) -> Option<SecretString> {
        let value: serde_json::Value = serde_json::from_str(self.0.expose_json()).ok()?;
        value.get("refresh_token")?.as_str().map(|t| SecretString::from(t.to_owned()))
    }
}

/// The stable id of a credential without identity: `unverified-` and 16 hex digits of the
/// SHA-256 of its refresh token (else its access token), so importing the same file twice
/// updates one account.
pub fn unverified_external_id(refresh_token: Option<&SecretString>, access_token: &SecretString) -> String {
    let token = refresh_token.unwrap_or(access_token);
    let digest = Sha256::digest(token.expose_secret().as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("unverified-{hex}")
}

/// What one entry of the input holds.
#[derive(Debug)]
pub enum CandidateContent {
    /// Tokens that are stored as they are.
    Ready(Box<ImportedCredential>),
    /// A refresh token without an access token: the import exchanges it (once) for a fresh pair;
    /// its account is known only then.
    NeedsExchange(RefreshSeed),
}

/// One entry of an import, numbered from 1 in input order (lines without comments, array or
/// bundle entries).
#[derive(Debug)]
pub struct ImportCandidate {
    pub entry: usize,
    pub content: CandidateContent,
}

/// Why an import or export failed; messages name the entry and never contain a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ImportFailure(pub String);

/// Why one refresh token could not be exchanged. `code` is the upstream's stable refusal
/// (`invalid_grant`, `refresh_token_reused`, …) or a transient kind (`upstream_unavailable`);
/// never a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the refresh token could not be exchanged: {code}")]
pub struct ExchangeFailure {
    pub code: String,
}

#[async_trait]
pub trait CredentialImporter: Send + Sync {
    fn provider(&self) -> ProviderKind;

    /// Reads every entry of `input` without sending anything upstream. A malformed entry fails
    /// the whole input (nothing has been spent yet).
    fn parse(&self, input: &[u8]) -> Result<Vec<ImportCandidate>, ImportFailure>;

    /// Exchanges one refresh token for a fresh pair. Spends the token: the caller must store
    /// what this returns.
    async fn exchange(&self, seed: RefreshSeed) -> Result<ImportedCredential, ExchangeFailure>;

    /// The export bundle entry of one stored credential (re-importing it is idempotent).
    fn export_entry(
        &self,
        document: &CredentialDocument,
        profile: &AccountProfile,
    ) -> Result<serde_json::Value, ImportFailure>;
}

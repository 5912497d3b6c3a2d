//! The OpenAI credential document (the provider's own JSON inside the encrypted column).
//!
//! `{"v":1,"access_token":…,"refresh_token":…,"id_token":…,"account_id":…,"expires_at":…,
//! "installation_id":…,"last_refresh":…}`. Tokens are held as secrets: `Debug` shows none.

use std::fmt;

use gateway_core::domain::CredentialDocument;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use crate::claims::{self, Identity};

pub const DOCUMENT_VERSION: u32 = 1;

#[derive(Clone)]
pub struct OpenAiCredential {
    pub access_token: SecretString,
    pub refresh_token: Option<SecretString>,
    pub id_token: Option<SecretString>,
    /// The ChatGPT account id sent as `ChatGPT-Account-ID`.
    pub account_id: Option<String>,
    /// Access token expiry (unix seconds), from the token's `exp`.
    pub expires_at: Option<i64>,
    /// A per-account installation id (kept across re-authorisation).
    pub installation_id: Option<String>,
    pub last_refresh: Option<i64>,
}

impl fmt::Debug for OpenAiCredential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiCredential")
            .field("access_token", &"[REDACTED]")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "[REDACTED]"))
            .field("id_token", &self.id_token.as_ref().map(|_| "[REDACTED]"))
            .field("account_id", &self.account_id)
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

#[derive(Serialize, Deserialize)]
struct Document {
    #[serde(default)]
    v: u32,
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    id_token: Option<String>,
    #[serde(default)]
    account_id: Option<String>,
    #[serde(default)]
    expires_at: Option<i64>,
    #[serde(default)]
    installation_id: Option<String>,
    #[serde(default)]
    last_refresh: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    #[error("the credential document is not a valid OpenAI credential")]
    Malformed,
    #[error("the credential document has version {0}, newer than this build understands")]
    UnknownVersion(u32),
}

impl OpenAiCredential {
    pub fn decode(document: &CredentialDocument) -> Result<Self, CredentialError> {
        let doc: Document = serde_json::from_str(document.expose_json()).map_err(|_| CredentialError::Malformed)?;
        if doc.v > DOCUMENT_VERSION {
            return Err(CredentialError::UnknownVersion(doc.v));
        }
        if doc.access_token.is_empty() {
            return Err(CredentialError::Malformed);
        }
        Ok(Self {
            access_token: SecretString::from(doc.access_token),
            refresh_token: doc.refresh_token.filter(|t| !t.is_empty()).map(SecretString::from),
            id_token: doc.id_token.filter(|t| !t.is_empty()).map(SecretString::from),
            account_id: doc.account_id,
            expires_at: doc.expires_at,
            installation_id: doc.installation_id,
            last_refresh: doc.last_refresh,
        })
    }

    pub fn encode(&self) -> CredentialDocument {
        let doc = Document {
            v: DOCUMENT_VERSION,
            access_token: self.access_token.expose_secret().to_owned(),
            refresh_token: self.refresh_token.as_ref().map(|t| t.expose_secret().to_owned()),
            id_token: self.id_token.as_ref().map(|t| t.expose_secret().to_owned()),
            account_id: self.account_id.clone(),
            expires_at: self.expires_at,
            installation_id: self.installation_id.clone(),
            last_refresh: self.last_refresh,
        };
        CredentialDocument::new(serde_json::to_string(&doc).unwrap_or_default())
    }

    /// Identity from the id token, completed from the access token.
    pub fn identity(&self) -> Identity {
        let from_id = self.id_token.as_ref().map(|t| claims::read(t.expose_secret())).unwrap_or_default();
        let from_access = claims::read(self.access_token.expose_secret());
        let mut identity = from_id.or(from_access.clone());
        // Expiry is the access token's, never the id token's.
        identity.expires_at = from_access.expires_at;
        identity
    }
}

impl gateway_core::provider_credentials::DecodedCredential for OpenAiCredential {
    fn decode_document(document: &CredentialDocument) -> Option<Self> {
        Self::decode(document).ok()
    }
}

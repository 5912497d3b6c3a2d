//! The xAI credential document (the provider's own JSON inside the encrypted column).
//!
//! `{"v":1,"access_token":…,"refresh_token":…,"expires_at":…,"user_id":…,"email":…,
//! "team_id":…}`. Tokens are held as secrets: `Debug` shows none.

use std::fmt;

use gateway_core::domain::CredentialDocument;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

pub const DOCUMENT_VERSION: u32 = 1;

#[derive(Clone)]
pub struct XaiCredential {
    pub access_token: SecretString,
    pub refresh_token: Option<SecretString>,
    /// Access token expiry (unix seconds).
    pub expires_at: Option<i64>,
    /// The OIDC `sub`, sent as `x-grok-user-id` / `x-userid`.
    pub user_id: Option<String>,
    pub email: Option<String>,
    pub team_id: Option<String>,
}

impl fmt::Debug for XaiCredential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("XaiCredential")
            .field("access_token", &"[REDACTED]")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "[REDACTED]"))
            .field("expires_at", &self.expires_at)
            .field("user_id", &self.user_id)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize, Deserialize)]
struct Document {
    #[serde(default)]
    v: u32,
    access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    user_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    team_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    #[error("the credential document is not a valid xAI credential")]
    Malformed,
    #[error("the credential document has version {0}, newer than this build understands")]
    UnknownVersion(u32),
}

impl XaiCredential {
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
            expires_at: doc.expires_at,
            user_id: doc.user_id.filter(|u| !u.is_empty()),
            email: doc.email.filter(|e| !e.is_empty()),
            team_id: doc.team_id.filter(|t| !t.is_empty()),
        })
    }

    pub fn encode(&self) -> CredentialDocument {
        let doc = Document {
            v: DOCUMENT_VERSION,
            access_token: self.access_token.expose_secret().to_owned(),
            refresh_token: self.refresh_token.as_ref().map(|t| t.expose_secret().to_owned()),
            expires_at: self.expires_at,
            user_id: self.user_id.clone(),
            email: self.email.clone(),
            team_id: self.team_id.clone(),
        };
        CredentialDocument::new(serde_json::to_string(&doc).unwrap_or_default())
    }
}

impl gateway_core::provider_credentials::DecodedCredential for XaiCredential {
    fn decode_document(document: &CredentialDocument) -> Option<Self> {
        Self::decode(document).ok()
    }
}

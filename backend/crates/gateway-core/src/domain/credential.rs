//! A provider's credential document: the provider's own JSON (tokens, expiry, installation id…).
//!
//! Only the owning provider interprets it. It is a secret from end to end: wrapped in `secrecy`,
//! `Debug` prints `[REDACTED]`, it is never serialised by serde, and at rest it is sealed by the
//! store (AES-256-GCM under the configured master key).

use std::fmt;

use secrecy::{ExposeSecret, SecretString};

use crate::domain::revision::CredentialRevision;

pub struct CredentialDocument(SecretString);

impl CredentialDocument {
    /// Wraps the provider's JSON text. The text is not validated here: the provider owns it.
    pub fn new(json: String) -> Self {
        Self(SecretString::from(json))
    }

    /// Serialises a provider value into a document.
    pub fn from_value(value: &serde_json::Value) -> Self {
        Self::new(value.to_string())
    }

    /// The JSON text; call only where the provider must read or send the secret.
    pub fn expose_json(&self) -> &str {
        self.0.expose_secret()
    }
}

impl Clone for CredentialDocument {
    fn clone(&self) -> Self {
        Self::new(self.expose_json().to_owned())
    }
}

impl fmt::Debug for CredentialDocument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CredentialDocument([REDACTED])")
    }
}

/// What loading a stored credential produced.
#[derive(Debug, Clone)]
pub enum CredentialSlot {
    /// Decrypted and ready for the provider.
    Available(CredentialDocument),
    /// The ciphertext could not be opened (its key is not configured, or it was tampered with).
    /// The account is unusable until re-authorised or the key is configured again.
    Unreadable { key_id: String },
}

/// A credential together with the revision it was read at (the expected revision of the next
/// compare-and-swap write).
#[derive(Debug, Clone)]
pub struct StoredCredential {
    pub revision: CredentialRevision,
    pub slot: CredentialSlot,
}

//! The deployment's identity key: the secret the per-account conversation identifiers are
//! derived with (decision 0233). It is HMAC-SHA-256(master key, label), so every replica that
//! shares the master key derives the same upstream values; no new secret is stored. A process
//! without a master key (never in production mode) uses a random key: its upstream values are
//! stable only for the life of the process.

use std::fmt;
use std::sync::Arc;

use hmac::{Hmac, KeyInit, Mac};
use secrecy::{ExposeSecret, SecretBox};
use sha2::Sha256;

/// Domain separation from the master key's other derived keys.
const DERIVATION_LABEL: &[u8] = b"switchboard upstream conversation identity v1";

/// Cheap to clone; `Debug` hides it.
#[derive(Clone)]
pub struct IdentityKey(Arc<SecretBox<[u8; 32]>>);

impl IdentityKey {
    /// HMAC-SHA-256(`master`, label).
    pub fn derive(master: &[u8]) -> Self {
        let mut mac = hmac_with(master);
        mac.update(DERIVATION_LABEL);
        Self(Arc::new(SecretBox::new(Box::new(mac.finalize().into_bytes().into()))))
    }

    /// A random key (a process without a master key; tests).
    pub fn random() -> Self {
        Self(Arc::new(SecretBox::new(Box::new(rand::random()))))
    }

    /// The account's own key: HMAC(identity key, upstream account id). Two accounts never share
    /// one, and neither reveals the other or the identity key.
    pub(crate) fn for_account(&self, upstream_account_id: &str) -> [u8; 32] {
        let mut mac = hmac_with(self.0.expose_secret());
        mac.update(b"account\0");
        mac.update(upstream_account_id.as_bytes());
        mac.finalize().into_bytes().into()
    }
}

impl Default for IdentityKey {
    fn default() -> Self {
        Self::random()
    }
}

impl fmt::Debug for IdentityKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IdentityKey([REDACTED])")
    }
}

pub(crate) fn hmac_with(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC accepts keys of any length")
}

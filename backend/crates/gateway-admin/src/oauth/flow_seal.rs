//! Pending flows are sealed at rest (decision 0144): coordination storage holds the PKCE
//! verifier and device ids only as AES-256-GCM ciphertext, under a key derived from the flow's
//! binding (the OAuth `state` of a browser flow, the flow id of a device flow). The storage key
//! is a different digest of the same binding, so what Redis holds cannot open the record; only
//! the admin holding the state or flow id can.
//!
//! Format: `0x01 || nonce (12) || ciphertext || tag (16)`; associated data: the flow key's
//! digest (a record copied under another key does not open).

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use gateway_core::coordination::OAuthFlowKey;
use gateway_core::domain::ProviderKind;
use rand::RngCore;
use secrecy::{ExposeSecret, SecretBox};
use sha2::{Digest, Sha256};

const VERSION: u8 = 1;
const NONCE_LEN: usize = 12;
const KDF_TAG: &[u8] = b"switchboard.oauth.flow-seal.v1";

/// The sealing key of one flow and the digest its ciphertext is bound to.
pub struct FlowSeal {
    key: SecretBox<[u8; 32]>,
    aad: [u8; 32],
}

impl std::fmt::Debug for FlowSeal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FlowSeal([REDACTED])")
    }
}

impl FlowSeal {
    /// The seal of the flow stored under `key`, whose binding is `binding`.
    pub fn derive(provider: ProviderKind, binding: &[u8], key: &OAuthFlowKey) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(KDF_TAG);
        hasher.update([0]);
        hasher.update(provider.as_str().as_bytes());
        hasher.update([0]);
        hasher.update(binding);
        Self { key: SecretBox::new(Box::new(hasher.finalize().into())), aad: key.digest }
    }

    fn cipher(&self) -> Option<Aes256Gcm> {
        Aes256Gcm::new_from_slice(self.key.expose_secret()).ok()
    }

    /// `plaintext` sealed; empty only if the cipher cannot be built (it always can: 32 bytes).
    pub fn seal(&self, plaintext: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        let Some(sealed) =
            self.cipher().and_then(|c| c.encrypt(&Nonce::from(nonce), Payload { msg: plaintext, aad: &self.aad }).ok())
        else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(1 + NONCE_LEN + sealed.len());
        out.push(VERSION);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        out
    }

    /// The plaintext, or `None` when `sealed` is not a ciphertext of this flow.
    pub fn open(&self, sealed: &[u8]) -> Option<Vec<u8>> {
        let (&version, rest) = sealed.split_first()?;
        if version != VERSION || rest.len() < NONCE_LEN {
            return None;
        }
        let (nonce, ciphertext) = rest.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().ok()?;
        self.cipher()?.decrypt(&Nonce::from(nonce), Payload { msg: ciphertext, aad: &self.aad }).ok()
    }
}

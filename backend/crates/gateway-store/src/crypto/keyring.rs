//! The current key (seals) and the retired keys (still open older ciphertexts).

use std::fmt;

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use rand::RngCore;
use secrecy::SecretString;

use crate::crypto::master_key::{MasterKey, MasterKeyError};

const SEAL_VERSION: u8 = 1;
const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;
const AAD_TAG: &[u8] = b"switchboard.seal.v1";

/// A ciphertext and the id of the key that sealed it (two columns in the database).
#[derive(Clone, PartialEq, Eq)]
pub struct SealedSecret {
    pub key_id: String,
    pub ciphertext: Vec<u8>,
}

impl fmt::Debug for SealedSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealedSecret")
            .field("key_id", &self.key_id)
            .field("ciphertext_len", &self.ciphertext.len())
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyringError {
    #[error("secrets.master_key: {0}")]
    Current(MasterKeyError),
    #[error("secrets.retired_master_keys[{index}]: {error}")]
    Retired { index: usize, error: MasterKeyError },
    #[error("master key id `{0}` is configured twice")]
    DuplicateId(String),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CryptoError {
    #[error("no configured master key has id `{key_id}` (list it in secrets.retired_master_keys)")]
    UnknownKey { key_id: String },
    #[error("sealed secret is malformed")]
    Malformed,
    #[error("sealed secret does not open under key `{key_id}` (wrong key or tampered data)")]
    Unauthentic { key_id: String },
    #[error("sealed secret is not UTF-8 text")]
    NotText,
    #[error("sealing failed")]
    SealFailed,
}

pub struct Keyring {
    current: MasterKey,
    retired: Vec<MasterKey>,
}

impl Keyring {
    pub fn new(current: MasterKey, retired: Vec<MasterKey>) -> Result<Self, KeyringError> {
        let mut ids = vec![current.id()];
        for key in &retired {
            if ids.contains(&key.id()) {
                return Err(KeyringError::DuplicateId(key.id().to_owned()));
            }
            ids.push(key.id());
        }
        Ok(Self { current, retired })
    }

    /// Builds the keyring from the `secrets` configuration section.
    pub fn from_config(master_key: &str, retired_master_keys: &[String]) -> Result<Self, KeyringError> {
        let current = MasterKey::parse(master_key).map_err(KeyringError::Current)?;
        let retired = retired_master_keys
            .iter()
            .enumerate()
            .map(|(index, text)| MasterKey::parse(text).map_err(|error| KeyringError::Retired { index, error }))
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(current, retired)
    }

    /// The id new ciphertexts are sealed under.
    pub fn current_key_id(&self) -> &str {
        self.current.id()
    }

    /// Seals `plaintext` under the current key. `context` names the column and row (see the
    /// module docs of `crypto`) and must be given again to open it.
    pub fn seal(&self, plaintext: &[u8], context: &str) -> Result<SealedSecret, CryptoError> {
        let key = &self.current;
        let cipher = Aes256Gcm::new_from_slice(key.bytes()).map_err(|_| CryptoError::SealFailed)?;
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        let aad = associated_data(key.id(), context);
        let sealed = cipher
            .encrypt(&Nonce::from(nonce), Payload { msg: plaintext, aad: &aad })
            .map_err(|_| CryptoError::SealFailed)?;
        let mut ciphertext = Vec::with_capacity(1 + NONCE_LEN + sealed.len());
        ciphertext.push(SEAL_VERSION);
        ciphertext.extend_from_slice(&nonce);
        ciphertext.extend_from_slice(&sealed);
        Ok(SealedSecret { key_id: key.id().to_owned(), ciphertext })
    }

    /// Opens a sealed text with whichever configured key has its id.
    pub fn open(&self, sealed: &SealedSecret, context: &str) -> Result<SecretString, CryptoError> {
        let key = self.key(&sealed.key_id).ok_or_else(|| CryptoError::UnknownKey { key_id: sealed.key_id.clone() })?;
        let bytes = &sealed.ciphertext;
        if bytes.len() < 1 + NONCE_LEN + TAG_LEN || bytes[0] != SEAL_VERSION {
            return Err(CryptoError::Malformed);
        }
        let nonce: [u8; NONCE_LEN] = bytes[1..1 + NONCE_LEN].try_into().map_err(|_| CryptoError::Malformed)?;
        let cipher = Aes256Gcm::new_from_slice(key.bytes()).map_err(|_| CryptoError::Malformed)?;
        let aad = associated_data(key.id(), context);
        let plaintext = cipher
            .decrypt(&Nonce::from(nonce), Payload { msg: &bytes[1 + NONCE_LEN..], aad: &aad })
            .map_err(|_| CryptoError::Unauthentic { key_id: sealed.key_id.clone() })?;
        let text = String::from_utf8(plaintext).map_err(|_| CryptoError::NotText)?;
        Ok(SecretString::from(text))
    }

    fn key(&self, id: &str) -> Option<&MasterKey> {
        std::iter::once(&self.current).chain(self.retired.iter()).find(|key| key.id() == id)
    }
}

impl fmt::Debug for Keyring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keyring")
            .field("current", &self.current.id())
            .field("retired", &self.retired.iter().map(MasterKey::id).collect::<Vec<_>>())
            .finish()
    }
}

fn associated_data(key_id: &str, context: &str) -> Vec<u8> {
    let mut aad = Vec::with_capacity(AAD_TAG.len() + key_id.len() + context.len() + 2);
    aad.extend_from_slice(AAD_TAG);
    aad.push(0);
    aad.extend_from_slice(key_id.as_bytes());
    aad.push(0);
    aad.extend_from_slice(context.as_bytes());
    aad
}

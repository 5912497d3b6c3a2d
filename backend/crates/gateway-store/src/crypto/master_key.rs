//! One master key: an id and 32 secret bytes, configured as `ID:BASE64`.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rand::RngCore;
use secrecy::{ExposeSecret, SecretBox, SecretString};

/// Key ids are short, printable and safe to log: `[A-Za-z0-9_.-]{1,64}`.
pub const MAX_KEY_ID_LEN: usize = 64;

pub struct MasterKey {
    id: String,
    bytes: SecretBox<[u8; 32]>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MasterKeyError {
    #[error("a master key must be written ID:BASE64")]
    MissingSeparator,
    #[error("master key id must be 1-64 characters of A-Z a-z 0-9 _ . -")]
    InvalidId,
    #[error("master key `{id}`: the value is not valid base64")]
    InvalidBase64 { id: String },
    #[error("master key `{id}`: the value must decode to 32 bytes, got {len}")]
    WrongLength { id: String, len: usize },
}

impl MasterKey {
    /// Parses `ID:BASE64` (standard alphabet, padded). Errors never echo the key material.
    pub fn parse(text: &str) -> Result<Self, MasterKeyError> {
        let (id, encoded) = text.trim().split_once(':').ok_or(MasterKeyError::MissingSeparator)?;
        validate_id(id)?;
        let decoded =
            STANDARD.decode(encoded.trim()).map_err(|_| MasterKeyError::InvalidBase64 { id: id.to_owned() })?;
        let bytes: [u8; 32] = decoded
            .as_slice()
            .try_into()
            .map_err(|_| MasterKeyError::WrongLength { id: id.to_owned(), len: decoded.len() })?;
        Ok(Self { id: id.to_owned(), bytes: SecretBox::new(Box::new(bytes)) })
    }

    /// A new random key (for `switchboard` key generation and tests).
    pub fn generate(id: &str) -> Result<Self, MasterKeyError> {
        validate_id(id)?;
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        Ok(Self { id: id.to_owned(), bytes: SecretBox::new(Box::new(bytes)) })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The `ID:BASE64` form to put in the configuration.
    pub fn to_config_value(&self) -> SecretString {
        SecretString::from(format!("{}:{}", self.id, STANDARD.encode(self.bytes.expose_secret())))
    }

    pub(crate) fn bytes(&self) -> &[u8; 32] {
        self.bytes.expose_secret()
    }
}

fn validate_id(id: &str) -> Result<(), MasterKeyError> {
    let valid = !id.is_empty()
        && id.len() <= MAX_KEY_ID_LEN
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if valid { Ok(()) } else { Err(MasterKeyError::InvalidId) }
}

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MasterKey").field("id", &self.id).field("bytes", &"[REDACTED]").finish()
    }
}

//! Administrator identity (`admin_users`): ids, the stored record, password hashes and admin
//! API keys. Secrets (hashes, key plaintexts) never print through `Debug`.

use std::fmt;

use secrecy::{ExposeSecret, SecretSlice, SecretString};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

/// A row of `admin_users`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AdminUserId(pub i64);

impl fmt::Display for AdminUserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// An argon2id PHC string (`$argon2id$…`). Not a secret in the strict sense, but never shown.
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordHash(pub String);

impl fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PasswordHash([REDACTED])")
    }
}

/// A stored administrator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminUserRecord {
    pub id: AdminUserId,
    pub username: String,
    /// `None`: no password login (an automation user with an API key only).
    pub password_hash: Option<PasswordHash>,
    pub enabled: bool,
    pub totp_enabled: bool,
    pub api_key_prefix: Option<String>,
    pub api_key_created_at: Option<OffsetDateTime>,
    pub last_login_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
}

/// The plaintext of an admin API key (`sb-admin-…`), shown once.
pub struct AdminApiKeySecret(SecretString);

impl AdminApiKeySecret {
    pub const PREFIX_LEN: usize = 14;

    pub fn new(plaintext: String) -> Self {
        Self(SecretString::from(plaintext))
    }

    pub fn hash(&self) -> [u8; 32] {
        admin_api_key_hash(self.0.expose_secret())
    }

    pub fn display_prefix(&self) -> String {
        self.0.expose_secret().chars().take(Self::PREFIX_LEN).collect()
    }

    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

impl fmt::Debug for AdminApiKeySecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AdminApiKeySecret([REDACTED])")
    }
}

/// SHA-256 of an admin API key's plaintext (`admin_users.api_key_hash`).
pub fn admin_api_key_hash(plaintext: &str) -> [u8; 32] {
    Sha256::digest(plaintext.as_bytes()).into()
}

/// What is stored for an admin API key.
#[derive(Clone, PartialEq, Eq)]
pub struct AdminApiKey {
    pub hash: [u8; 32],
    pub prefix: String,
}

impl fmt::Debug for AdminApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AdminApiKey({})", self.prefix)
    }
}

/// A new administrator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAdminUser {
    pub username: String,
    pub password_hash: Option<PasswordHash>,
}

/// The shared secret of an admin's TOTP authenticator (raw bytes). Sealed at rest
/// (`admin_users.totp_secret_ciphertext`, context `admin_users.totp:{id}`); shown once, as the
/// enrollment's `otpauth://` URI.
pub struct TotpSecret(SecretSlice<u8>);

impl TotpSecret {
    pub fn new(bytes: Vec<u8>) -> Self {
        Self(SecretSlice::from(bytes))
    }

    pub fn expose(&self) -> &[u8] {
        self.0.expose_secret()
    }
}

impl fmt::Debug for TotpSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TotpSecret([REDACTED])")
    }
}

/// A change of an admin's TOTP columns (one unit of work each).
#[derive(Debug)]
pub enum TotpChange<'a> {
    /// Store a new, not yet confirmed secret (replaces a pending one; refused while enabled).
    Pending(&'a TotpSecret),
    /// Enable TOTP with this (confirmed) secret.
    Enable(&'a TotpSecret),
    /// Remove the secret and disable TOTP.
    Clear,
}

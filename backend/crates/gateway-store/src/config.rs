//! The `database`, `redis` and `secrets` sections: where the stores are and the keys that seal
//! secrets at rest. Plain data with defaults and rules; the binary opens the adapters from them.

use gateway_core::config::InvalidConfig;
use gateway_core::redaction::url_userinfo_redacted;
use serde::{Deserialize, Serialize};

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DatabaseConfig {
    /// `postgres://…` for production mode; empty means the embedded mode.
    pub url: Option<String>,
    pub max_connections: u32,
}

impl Default for DatabaseConfig {
    fn default() -> Self {
        Self { url: None, max_connections: 16 }
    }
}

impl DatabaseConfig {
    /// Keys relative to the section (`url`).
    pub fn validate(&self) -> Result<(), InvalidConfig> {
        if let Some(url) = &self.url
            && !(url.starts_with("postgres://") || url.starts_with("postgresql://"))
        {
            return Err(InvalidConfig::new("url", "must start with postgres:// or postgresql://"));
        }
        if self.max_connections == 0 {
            return Err(InvalidConfig::new("max_connections", "must be at least 1"));
        }
        Ok(())
    }
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedisConfig {
    /// `redis://…`; required whenever `database.url` is set.
    pub url: Option<String>,
    /// Namespace of every key this deployment writes.
    pub key_prefix: String,
}

impl Default for RedisConfig {
    fn default() -> Self {
        Self { url: None, key_prefix: "switchboard".to_owned() }
    }
}

impl RedisConfig {
    /// Keys relative to the section (`url`); `database` decides whether Redis is required.
    pub fn validate(&self, database: &DatabaseConfig) -> Result<(), InvalidConfig> {
        if let Some(url) = &self.url
            && !(url.starts_with("redis://") || url.starts_with("rediss://"))
        {
            return Err(InvalidConfig::new("url", "must start with redis:// or rediss://"));
        }
        if database.url.is_some() && self.url.is_none() {
            return Err(InvalidConfig::new("url", "is required when database.url is set (production mode)"));
        }
        if self.key_prefix.is_empty() || self.key_prefix.contains(['{', '}', ' ']) {
            return Err(InvalidConfig::new("key_prefix", "must be non-empty without braces or spaces"));
        }
        Ok(())
    }
}

// The URLs may carry a password: `Debug` shows them with the user name and password redacted.
impl std::fmt::Debug for DatabaseConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatabaseConfig")
            .field("url", &self.url.as_deref().map(url_userinfo_redacted))
            .field("max_connections", &self.max_connections)
            .finish()
    }
}

impl std::fmt::Debug for RedisConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisConfig")
            .field("url", &self.url.as_deref().map(url_userinfo_redacted))
            .field("key_prefix", &self.key_prefix)
            .finish()
    }
}

/// Keys that encrypt secrets at rest (provider credentials, backup storage secrets).
///
/// Each key is written `ID:BASE64` where the base64 decodes to 32 bytes. New ciphertexts use
/// `master_key`; `retired_master_keys` can still decrypt older ones (rotation: make the new key
/// current, list the old one as retired, re-encrypt, then drop it).
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SecretsConfig {
    pub master_key: Option<String>,
    pub retired_master_keys: Vec<String>,
}

impl std::fmt::Debug for SecretsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretsConfig")
            .field("master_key", &self.master_key.as_ref().map(|_| "[REDACTED]"))
            .field("retired_master_keys", &format_args!("[{} REDACTED]", self.retired_master_keys.len()))
            .finish()
    }
}

//! [`CookieJarStore`]: the cookies an upstream set on an account's answers, kept per account and
//! per egress path (the path the cookies were collected on: a proxy changed means a new jar).
//! The jar itself is a secret (cookie values identify the session to the upstream): sealed at
//! rest by the adapter, never logged or shown. Its facts — names, domains, paths, expiry — are
//! not secret and are stored beside it for the admin view.

use std::fmt;

use async_trait::async_trait;
use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::StorageError;
use crate::domain::AccountId;

/// One cookie without its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CookieFacts {
    pub name: String,
    pub domain: String,
    pub path: String,
    /// `None`: a session cookie.
    #[serde(with = "time::serde::rfc3339::option", default)]
    pub expires_at: Option<OffsetDateTime>,
}

/// An account's jar as stored.
pub struct StoredCookieJar {
    pub account: AccountId,
    /// The egress path the cookies were collected on (`AccountEntry::egress_path`).
    pub egress_path: String,
    /// The serialised jar, values included (the provider's format).
    pub jar: SecretString,
    pub cookies: Vec<CookieFacts>,
    pub updated_at: OffsetDateTime,
}

impl fmt::Debug for StoredCookieJar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredCookieJar")
            .field("account", &self.account)
            .field("egress_path", &self.egress_path)
            .field("jar", &"[REDACTED]")
            .field("cookies", &self.cookies)
            .field("updated_at", &self.updated_at)
            .finish()
    }
}

/// What the admin view shows of a jar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookieJarFacts {
    pub egress_path: String,
    pub cookies: Vec<CookieFacts>,
    pub updated_at: OffsetDateTime,
}

#[async_trait]
pub trait CookieJarStore: Send + Sync {
    /// Every stored jar; a jar no configured key opens is left out (with a warning): cookies
    /// are rebuilt by the upstream's next answers.
    async fn load_cookie_jars(&self) -> Result<Vec<StoredCookieJar>, StorageError>;

    /// Writes the account's jar (replacing the one stored). An account deleted meanwhile is not
    /// an error: nothing is written.
    async fn save_cookie_jar(&self, jar: &StoredCookieJar) -> Result<(), StorageError>;

    async fn delete_cookie_jar(&self, account: AccountId) -> Result<(), StorageError>;

    /// The account's jar without values, when one is stored.
    async fn cookie_jar_facts(&self, account: AccountId) -> Result<Option<CookieJarFacts>, StorageError>;
}

//! Admin authentication: password login with rate limiting, sessions (idle + absolute expiry),
//! admin API keys, and the principal every admin request acts as.
//!
//! Rules:
//! - every password a request sends (login or step-up) goes through [`password_guard`]: the
//!   attempt is counted against the client address and against its device cookie or, without
//!   a valid one, the username's untrusted clients (fixed windows) before the password is
//!   verified, atomically, and taken back when it succeeds; at a limit, or with the hashing
//!   bound full, it is refused with `rate_limited` before anything is verified;
//! - a successful login issues a new signed device cookie, so guessing from elsewhere never
//!   locks the owner's browser out;
//! - unknown usernames and wrong passwords give the same error and take the same time;
//! - the session token (cookie) and the API key are stored only as SHA-256 digests;
//! - a session lives only while its admin is enabled and has the credentials it logged in with
//!   ([`standing`]); a password change replaces the changing session with a new one;
//! - with TOTP enabled, the password alone never logs in; a wrong code counts as a failed
//!   login and a code is accepted once.

pub mod api_keys;
pub mod bootstrap;
pub mod client_address;
pub mod device_cookie;
pub mod login;
pub mod password_guard;
pub mod standing;
pub mod totp;
pub mod two_factor;

use std::time::Duration;

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::admin_user::AdminUserId;
use crate::audit::AuditActor;
use crate::ports::SessionTokenHash;

pub use client_address::TrustedProxies;
pub use login::{LoginAttempt, LoginOutcome, authenticate_session, login, logout, still_signed_in};
pub use password_guard::{ClientOrigin, PasswordGuard};
pub use standing::AdminStandings;

/// How sessions and login limits behave (from the `admin` config section).
#[derive(Debug, Clone)]
pub struct AuthPolicy {
    pub session_idle: Duration,
    pub session_absolute: Duration,
    pub max_failures_per_ip: u32,
    /// Failures per window of the username from clients without its device cookie.
    pub max_failures_per_user: u32,
    /// Failures per window sent with one device cookie.
    pub max_failures_per_device: u32,
    pub failure_window: Duration,
    /// How long a device cookie is valid.
    pub device_cookie_lifetime: Duration,
    /// Password hashes or verifications at a time, process-wide (argon2 takes 19 MiB each).
    pub hash_concurrency: usize,
}

impl Default for AuthPolicy {
    fn default() -> Self {
        Self {
            session_idle: Duration::from_secs(30 * 60),
            session_absolute: Duration::from_secs(12 * 3600),
            max_failures_per_ip: 20,
            max_failures_per_user: 5,
            max_failures_per_device: 5,
            failure_window: Duration::from_secs(300),
            device_cookie_lifetime: Duration::from_secs(30 * 86_400),
            hash_concurrency: 2,
        }
    }
}

/// How the current request authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthMethod {
    /// A session cookie; unsafe methods must carry the session's CSRF token.
    Session { session_id: String, csrf_token: String },
    /// `Authorization: Bearer sb-admin-…` (automation): no cookie, so no CSRF check.
    ApiKey,
}

/// The administrator a request acts as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminPrincipal {
    pub user_id: AdminUserId,
    pub username: String,
    pub method: AuthMethod,
}

impl AdminPrincipal {
    /// The audit actor of this principal (`name` tells API-key automation apart).
    pub fn actor(&self) -> AuditActor {
        let name = match self.method {
            AuthMethod::Session { .. } => self.username.clone(),
            AuthMethod::ApiKey => format!("{} (api key)", self.username),
        };
        AuditActor { user_id: Some(self.user_id), name: name.chars().take(100).collect() }
    }
}

/// A random URL-safe token of 32 bytes (session ids, CSRF tokens).
pub fn random_token() -> String {
    let bytes: [u8; 32] = rand::random();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The digest under which a session token is stored.
pub fn session_token_hash(token: &str) -> SessionTokenHash {
    SessionTokenHash(Sha256::digest(token.as_bytes()).into())
}

/// Compares two secrets in constant time (for equal lengths).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

//! The one way a password a request sends is checked (login and every step-up): the attempt is
//! counted against the login limits first, atomically, then verified under the hashing bound;
//! an attempt that succeeds is taken back, so what stays counted are the failures.
//!
//! The counters are the client address and either the device cookie the attempt carries (a
//! valid one for the username, see [`crate::auth::device_cookie`]) or, without one, the
//! username's "untrusted clients". Counting before verifying means N concurrent guesses see N
//! distinct counts: never more than the limit of them reach argon2. A limit reached, or the hashing bound full, refuses the
//! attempt with `rate_limited` before anything is verified, and such a refused attempt is not
//! counted.

use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use crate::admin_user::PasswordHash;
use crate::auth::AuthPolicy;
use crate::auth::device_cookie::DeviceCookies;
use crate::error::AdminError;
use crate::passwords::{HashPermit, PasswordHashing, hash_password_with, verify_password};
use crate::ports::LoginThrottle;

/// Where an attempt comes from.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ClientOrigin {
    /// The client address as the server sees it (or from a trusted proxy header).
    pub ip: Option<String>,
    /// The device cookie the browser sent, unchecked.
    pub device_cookie: Option<String>,
}

impl std::fmt::Debug for ClientOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOrigin")
            .field("ip", &self.ip)
            .field("device_cookie", &self.device_cookie.as_ref().map(|_| "[REDACTED]"))
            .finish()
    }
}

/// One counter an attempt is counted against, with its limit.
struct Subject {
    key: String,
    limit: u32,
}

/// The login limits, the throttle that counts them, the device cookies and the hashing bound.
pub struct PasswordGuard {
    throttle: Arc<dyn LoginThrottle>,
    hashing: PasswordHashing,
    devices: DeviceCookies,
    max_failures_per_ip: u32,
    max_failures_per_user: u32,
    max_failures_per_device: u32,
    window: Duration,
}

impl PasswordGuard {
    pub fn new(throttle: Arc<dyn LoginThrottle>, devices: DeviceCookies, policy: &AuthPolicy) -> Self {
        Self {
            throttle,
            hashing: PasswordHashing::new(policy.hash_concurrency),
            devices,
            max_failures_per_ip: policy.max_failures_per_ip,
            max_failures_per_user: policy.max_failures_per_user,
            max_failures_per_device: policy.max_failures_per_device,
            window: policy.failure_window,
        }
    }

    /// The device cookies this guard checks and issues.
    pub fn devices(&self) -> &DeviceCookies {
        &self.devices
    }

    /// The hashing bound of every check.
    pub fn hashing(&self) -> &PasswordHashing {
        &self.hashing
    }

    /// The throttle (also keeps the once-markers of TOTP codes).
    pub fn throttle(&self) -> &dyn LoginThrottle {
        self.throttle.as_ref()
    }

    /// The address, then the device cookie or (without a valid one) the untrusted clients of
    /// the username.
    fn subjects(&self, origin: &ClientOrigin, username: &str) -> [Subject; 2] {
        let address = format!("ip:{}", origin.ip.as_deref().unwrap_or("unknown"));
        let device = origin
            .device_cookie
            .as_deref()
            .and_then(|cookie| self.devices.verify(cookie, username, OffsetDateTime::now_utc()));
        let client = match device {
            Some(device) => Subject { key: format!("device:{}", device.0), limit: self.max_failures_per_device },
            None => Subject {
                key: format!("untrusted:{}", normalise_username(username)),
                limit: self.max_failures_per_user,
            },
        };
        [Subject { key: address, limit: self.max_failures_per_ip }, client]
    }

    /// Counts an attempt of `password` for `username` and verifies it against `hash` (`None`:
    /// no such user, or one that cannot log in; a decoy is verified so it takes the same time).
    ///
    /// Refused with `rate_limited` (nothing verified, nothing counted) when a limit is reached
    /// or the hashing bound is full. Otherwise the attempt stays counted as a failure unless
    /// [`CheckedAttempt::succeeded`] is called.
    pub async fn check(
        &self,
        origin: &ClientOrigin,
        username: &str,
        hash: Option<&PasswordHash>,
        password: &str,
    ) -> Result<CheckedAttempt<'_>, AdminError> {
        let mut attempt = CheckedAttempt { guard: self, counted: Vec::new(), password_ok: false, permit: None };
        for subject in self.subjects(origin, username) {
            let count = match self.throttle.count_attempt(&subject.key, self.window).await {
                Ok(count) => count,
                Err(error) => {
                    attempt.uncount().await;
                    return Err(error.into());
                }
            };
            attempt.counted.push(subject.key);
            if count.failures > subject.limit {
                attempt.uncount().await;
                return Err(AdminError::RateLimited { retry_after_seconds: count.resets_in.as_secs().max(1) });
            }
        }
        let permit = match self.hashing.try_permit() {
            Ok(permit) => permit,
            Err(busy) => {
                attempt.uncount().await;
                return Err(busy);
            }
        };
        attempt.password_ok = verify_password(&permit, password, hash).await;
        attempt.permit = Some(permit);
        Ok(attempt)
    }
}

/// An attempt that was counted and whose password was verified. Dropped without
/// [`CheckedAttempt::succeeded`], it stays counted as a failure.
pub struct CheckedAttempt<'a> {
    guard: &'a PasswordGuard,
    counted: Vec<String>,
    /// Whether the password was right.
    pub password_ok: bool,
    permit: Option<HashPermit>,
}

impl CheckedAttempt<'_> {
    /// The attempt as a whole succeeded: it is taken back from every counter.
    pub async fn succeeded(mut self) {
        self.uncount().await;
    }

    /// Hashes a new password under this attempt's hashing permit (a password change).
    pub async fn hash(&self, password: &str) -> Result<PasswordHash, AdminError> {
        match &self.permit {
            Some(permit) => hash_password_with(permit, password).await,
            None => hash_password_with(&self.guard.hashing.try_permit()?, password).await,
        }
    }

    async fn uncount(&mut self) {
        for key in self.counted.drain(..) {
            // Failing to take an attempt back leaves it counted: the safe side.
            if let Err(error) = self.guard.throttle.uncount_attempt(&key).await {
                tracing::warn!(error = %error, "could not take a login attempt back");
            }
        }
    }
}

/// Usernames are compared case-insensitively and without surrounding spaces.
pub fn normalise_username(username: &str) -> String {
    username.trim().to_lowercase()
}

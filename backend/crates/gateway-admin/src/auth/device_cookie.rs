//! Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser
//! that signed in as a user gets a cookie naming that user, signed with HMAC-SHA-256. Password
//! attempts sent with a valid device cookie of the username are counted per device cookie;
//! attempts without one are counted together as "untrusted clients" of the username. A
//! distributed guesser exhausts the untrusted count and is refused, while the owner's browser
//! keeps its own count and gets in.
//!
//! Format: `v1.<username>.<nonce>.<expires>.<mac>` — the normalised username and a 128-bit
//! nonce in base64url, the expiry in Unix seconds, and the MAC over everything before it.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use secrecy::{ExposeSecret, SecretBox};
use sha2::Sha256;
use time::OffsetDateTime;

use crate::auth::password_guard::normalise_username;

const VERSION: &str = "v1";
/// Domain separation when the key is derived from the master key.
const DERIVATION_LABEL: &[u8] = b"switchboard admin device cookie v1";

/// The key device cookies are signed with. Cheap to clone; `Debug` hides it.
#[derive(Clone)]
pub struct DeviceCookieKey(Arc<SecretBox<[u8; 32]>>);

impl DeviceCookieKey {
    /// HMAC-SHA-256(`master`, label): the same on every replica that shares the master key.
    pub fn derive(master: &[u8]) -> Self {
        let mut mac = hmac_with(master);
        mac.update(DERIVATION_LABEL);
        Self(Arc::new(SecretBox::new(Box::new(mac.finalize().into_bytes().into()))))
    }

    /// A random key (a single process without a master key; tests).
    pub fn random() -> Self {
        Self(Arc::new(SecretBox::new(Box::new(rand::random()))))
    }
}

impl fmt::Debug for DeviceCookieKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DeviceCookieKey([REDACTED])")
    }
}

fn hmac_with(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC accepts keys of any length")
}

/// The device a valid cookie names (its nonce): the subject its failures are counted under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceId(pub String);

/// Issues and checks device cookies.
#[derive(Debug, Clone)]
pub struct DeviceCookies {
    key: DeviceCookieKey,
    lifetime: Duration,
}

impl DeviceCookies {
    pub fn new(key: DeviceCookieKey, lifetime: Duration) -> Self {
        Self { key, lifetime }
    }

    /// How long an issued cookie is valid (also its `Max-Age`).
    pub fn lifetime(&self) -> Duration {
        self.lifetime
    }

    fn mac(&self, payload: &str) -> Hmac<Sha256> {
        let mut mac = hmac_with(self.key.0.expose_secret());
        mac.update(payload.as_bytes());
        mac
    }

    /// A new cookie for `username`, valid for the lifetime from `now`.
    pub fn issue(&self, username: &str, now: OffsetDateTime) -> String {
        let user = URL_SAFE_NO_PAD.encode(normalise_username(username));
        let nonce = URL_SAFE_NO_PAD.encode(rand::random::<[u8; 16]>());
        let lifetime = i64::try_from(self.lifetime.as_secs()).unwrap_or(i64::MAX);
        let expires = now.unix_timestamp().saturating_add(lifetime);
        let payload = format!("{VERSION}.{user}.{nonce}.{expires}");
        let tag = URL_SAFE_NO_PAD.encode(self.mac(&payload).finalize().into_bytes());
        format!("{payload}.{tag}")
    }

    /// The device of `cookie` when it is well-formed, signed with this key, names `username`
    /// and has not expired at `now`; `None` otherwise (the attempt is an untrusted client's).
    pub fn verify(&self, cookie: &str, username: &str, now: OffsetDateTime) -> Option<DeviceId> {
        let (payload, tag) = cookie.rsplit_once('.')?;
        let tag = URL_SAFE_NO_PAD.decode(tag).ok()?;
        self.mac(payload).verify_slice(&tag).ok()?;
        let mut parts = payload.split('.');
        let (version, user, nonce, expires) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if version != VERSION || parts.next().is_some() {
            return None;
        }
        let user = URL_SAFE_NO_PAD.decode(user).ok()?;
        if user != normalise_username(username).as_bytes() || expires.parse::<i64>().ok()? <= now.unix_timestamp() {
            return None;
        }
        Some(DeviceId(nonce.to_owned()))
    }
}

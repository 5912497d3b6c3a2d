//! A cookie jar (RFC 6265 storage and matching, by the `cookie_store` crate) for the cookies an
//! upstream sets on one identity's answers, sent back on that identity's later requests. The
//! caller keeps one jar per identity (account × egress path) and decides where it lives; this
//! module only stores, matches, expires and serialises.
//!
//! Cookie values are secrets: `Debug` shows names only, and [`CookieJar::entries`] gives names,
//! domains and expiry without values.

use std::fmt;

use cookie_store::{Cookie, CookieExpiration, CookieStore};
use http::{HeaderMap, HeaderValue};
use time::OffsetDateTime;
use url::Url;

/// Most cookies one jar keeps; further ones are ignored (an upstream never needs more).
pub const MAX_COOKIES: usize = 64;
/// Longest `Set-Cookie` value taken.
const MAX_SET_COOKIE_BYTES: usize = 4096;

#[derive(Default, Clone)]
pub struct CookieJar {
    store: CookieStore,
}

/// A cookie as it may be shown: no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookieEntry {
    pub name: String,
    pub domain: String,
    pub path: String,
    /// `None`: a session cookie (kept while the gateway keeps the jar).
    pub expires_at: Option<OffsetDateTime>,
}

/// A jar's serialised form could not be read.
#[derive(Debug, thiserror::Error)]
#[error("the stored cookie jar is unreadable")]
pub struct UnreadableJar;

impl CookieJar {
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the `Set-Cookie` headers of an answer to `url`. Returns whether the jar changed.
    pub fn absorb(&mut self, url: &Url, headers: &HeaderMap) -> bool {
        let mut changed = false;
        for value in headers.get_all(http::header::SET_COOKIE) {
            let Ok(text) = value.to_str() else { continue };
            if text.len() > MAX_SET_COOKIE_BYTES {
                continue;
            }
            let known = self.store.iter_any().count();
            let Ok(cookie) = Cookie::parse(text, url) else { continue };
            let replaces = self.store.contains_any(
                cookie.domain.as_cow().as_deref().unwrap_or_default(),
                &String::from(cookie.path.clone()),
                cookie.name(),
            );
            if known >= MAX_COOKIES && !replaces {
                continue;
            }
            changed |= self.store.insert(cookie.into_owned(), url).is_ok();
        }
        if changed {
            self.drop_expired();
        }
        changed
    }

    /// The `Cookie` header for a request to `url`, when any cookie matches.
    pub fn header(&self, url: &Url) -> Option<HeaderValue> {
        let mut value = String::new();
        for (name, cookie) in self.store.get_request_values(url) {
            if !value.is_empty() {
                value.push_str("; ");
            }
            value.push_str(name);
            value.push('=');
            value.push_str(cookie);
        }
        if value.is_empty() {
            return None;
        }
        let mut header = HeaderValue::from_str(&value).ok()?;
        header.set_sensitive(true);
        Some(header)
    }

    pub fn is_empty(&self) -> bool {
        self.store.iter_unexpired().next().is_none()
    }

    /// The unexpired cookies without their values.
    pub fn entries(&self) -> Vec<CookieEntry> {
        let mut entries: Vec<CookieEntry> = self
            .store
            .iter_unexpired()
            .map(|cookie| CookieEntry {
                name: cookie.name().to_owned(),
                domain: cookie.domain.as_cow().map(|d| d.into_owned()).unwrap_or_default(),
                path: String::from(cookie.path.clone()),
                expires_at: match cookie.expires {
                    CookieExpiration::AtUtc(at) => Some(at),
                    CookieExpiration::SessionEnd => None,
                },
            })
            .collect();
        entries.sort_by(|a, b| (&a.domain, &a.name).cmp(&(&b.domain, &b.name)));
        entries
    }

    /// The unexpired cookies (session cookies included) as JSON, values included: a secret.
    pub fn to_json(&self) -> String {
        let cookies: Vec<&Cookie<'static>> = self.store.iter_unexpired().collect();
        serde_json::to_string(&cookies).unwrap_or_else(|_| "[]".to_owned())
    }

    /// The jar [`to_json`](Self::to_json) wrote; cookies expired since are left out.
    pub fn from_json(json: &str) -> Result<Self, UnreadableJar> {
        let cookies: Vec<Cookie<'static>> = serde_json::from_str(json).map_err(|_| UnreadableJar)?;
        let store = CookieStore::from_cookies(cookies.into_iter().map(Ok::<_, UnreadableJar>), false)?;
        Ok(Self { store })
    }

    fn drop_expired(&mut self) {
        let expired: Vec<(String, String, String)> = self
            .store
            .iter_any()
            .filter(|cookie| cookie.is_expired())
            .map(|cookie| {
                let domain = cookie.domain.as_cow().map(|d| d.into_owned()).unwrap_or_default();
                (domain, String::from(cookie.path.clone()), cookie.name().to_owned())
            })
            .collect();
        for (domain, path, name) in expired {
            self.store.remove(&domain, &path, &name);
        }
    }
}

impl fmt::Debug for CookieJar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.store.iter_unexpired().map(|c| c.name().to_owned()).collect();
        f.debug_struct("CookieJar").field("names", &names).finish()
    }
}

//! An egress proxy configured on an account or a group (decision 0241): the whole URL is a
//! secret (its user info may hold a password), sealed at rest by the store; what may be shown,
//! logged and audited is the URL without user info (`scheme://host:port`).
//!
//! The core does not parse the URL: the admin use case validates it before it is stored and the
//! provider's transport parses it when it connects.

use std::fmt;

use secrecy::{ExposeSecret, SecretString};

pub struct EgressProxy {
    display: String,
    /// `None`: the sealed URL could not be opened (its key is not configured).
    url: Option<SecretString>,
}

impl EgressProxy {
    /// A proxy whose URL is known. `display` is the URL without user info.
    pub fn new(display: String, url: String) -> Self {
        Self { display, url: Some(SecretString::from(url)) }
    }

    /// A stored proxy whose sealed URL does not open: an account behind it cannot be used (it
    /// would otherwise go out directly, from the address the proxy was meant to hide).
    pub fn unreadable(display: String) -> Self {
        Self { display, url: None }
    }

    /// `scheme://host:port`, without user info: safe for views, logs and audit rows.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The whole URL; call only where it is sealed or where the transport connects.
    pub fn expose_url(&self) -> Option<&str> {
        self.url.as_ref().map(ExposeSecret::expose_secret)
    }

    pub fn is_readable(&self) -> bool {
        self.url.is_some()
    }

    /// Whether the URL carries user info (a user name, a password).
    pub fn has_credentials(&self) -> bool {
        self.expose_url().and_then(|url| url.split_once("://")).is_some_and(|(_, rest)| {
            rest.split(['/', '?', '#']).next().is_some_and(|authority| authority.contains('@'))
        })
    }
}

impl Clone for EgressProxy {
    fn clone(&self) -> Self {
        Self { display: self.display.clone(), url: self.expose_url().map(|u| SecretString::from(u.to_owned())) }
    }
}

impl PartialEq for EgressProxy {
    fn eq(&self, other: &Self) -> bool {
        self.display == other.display && self.expose_url() == other.expose_url()
    }
}

impl Eq for EgressProxy {}

impl fmt::Debug for EgressProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = if self.is_readable() { "" } else { ", unreadable" };
        write!(f, "EgressProxy({}{state})", self.display)
    }
}

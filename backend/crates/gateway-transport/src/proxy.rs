//! Egress proxy URLs: `http://[user:pass@]host:port` (HTTP CONNECT) and
//! `socks5://[user:pass@]host:port` (SOCKS5; the proxy resolves the target name, `socks5h` is
//! accepted as the same). The user info is a secret: `Debug` and [`ProxyUrl::redacted`] never
//! show it.

use secrecy::{ExposeSecret, SecretString};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProxyKind {
    HttpConnect,
    Socks5,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid proxy URL: {0}")]
pub struct InvalidProxy(pub String);

/// A parsed egress proxy.
#[derive(Clone)]
pub struct ProxyUrl {
    kind: ProxyKind,
    host: String,
    port: u16,
    username: Option<SecretString>,
    password: Option<SecretString>,
    /// `scheme://host:port` (no user info): pool key and display form.
    public: String,
}

impl std::fmt::Debug for ProxyUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ProxyUrl({})", self.redacted())
    }
}

impl PartialEq for ProxyUrl {
    fn eq(&self, other: &Self) -> bool {
        let secret = |s: &Option<SecretString>| s.as_ref().map(|s| s.expose_secret().to_owned());
        self.public == other.public
            && secret(&self.username) == secret(&other.username)
            && secret(&self.password) == secret(&other.password)
    }
}

impl ProxyUrl {
    pub fn parse(raw: &str) -> Result<Self, InvalidProxy> {
        // Never echo the input: it may hold a password.
        let parsed = url::Url::parse(raw.trim()).map_err(|e| InvalidProxy(format!("not a URL ({e})")))?;
        let kind = match parsed.scheme() {
            "http" => ProxyKind::HttpConnect,
            "socks5" | "socks5h" => ProxyKind::Socks5,
            other => return Err(InvalidProxy(format!("scheme `{other}` (use http or socks5)"))),
        };
        let host = parsed.host_str().ok_or_else(|| InvalidProxy("no host".to_owned()))?;
        let host = host.trim_matches(['[', ']']).to_owned();
        let port = parsed.port().unwrap_or(match kind {
            ProxyKind::HttpConnect => 80,
            ProxyKind::Socks5 => 1080,
        });
        if parsed.path() != "/" && !parsed.path().is_empty() || parsed.query().is_some() {
            return Err(InvalidProxy("a proxy URL has no path or query".to_owned()));
        }
        let decode = |s: &str| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned();
        let username = (!parsed.username().is_empty()).then(|| SecretString::from(decode(parsed.username())));
        let password = parsed.password().map(|p| SecretString::from(decode(p)));
        let scheme = match kind {
            ProxyKind::HttpConnect => "http",
            ProxyKind::Socks5 => "socks5",
        };
        let public = if host.contains(':') {
            format!("{scheme}://[{host}]:{port}")
        } else {
            format!("{scheme}://{host}:{port}")
        };
        Ok(Self { kind, host, port, username, password, public })
    }

    pub fn kind(&self) -> ProxyKind {
        self.kind
    }

    pub fn host(&self) -> &str {
        &self.host
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `scheme://host:port`, with the user info left out.
    pub fn redacted(&self) -> &str {
        &self.public
    }

    pub fn has_credentials(&self) -> bool {
        self.username.is_some()
    }

    pub(crate) fn username(&self) -> Option<&str> {
        self.username.as_ref().map(ExposeSecret::expose_secret)
    }

    pub(crate) fn password(&self) -> Option<&str> {
        self.password.as_ref().map(ExposeSecret::expose_secret)
    }

    /// The pool key: connections through different proxies (or credentials) never mix.
    pub(crate) fn pool_key(&self) -> String {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.username().hash(&mut hasher);
        self.password().hash(&mut hasher);
        format!("{}#{:x}", self.public, hasher.finish())
    }
}

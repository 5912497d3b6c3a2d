//! The `admin` section: the first administrator, sessions, login limits, password hashing,
//! cookies and proxies. The composition root maps it onto `AuthPolicy`, `TrustedProxies` and the
//! admin API's HTTP settings.

use std::net::IpAddr;

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use gateway_core::config::InvalidConfig;

/// Loopback and private networks (RFC 1918, IPv6 unique local): where a reverse proxy in front
/// of the gateway usually is.
pub const DEFAULT_TRUSTED_PROXY_CIDRS: [&str; 6] =
    ["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"];

/// The admin API: the first administrator, sessions, login rate limits, cookies.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdminConfig {
    /// Username of the first admin, created at start when there is none.
    pub bootstrap_username: String,
    /// Its password; when not set a random one is generated and printed once to stderr.
    pub bootstrap_password: Option<String>,
    /// A session ends after this long without a request.
    pub session_idle_minutes: u64,
    /// A session ends this long after login, used or not.
    pub session_absolute_hours: u64,
    /// Failed password attempts per client address per window before attempts are refused (429).
    pub login_max_failures_per_ip: u32,
    /// Failed password attempts per username per window, from clients without a device cookie
    /// of that username, before such attempts are refused (429).
    pub login_max_failures_per_user: u32,
    /// Failed password attempts per window sent with one device cookie before that cookie is
    /// refused (429).
    pub login_max_failures_per_device: u32,
    pub login_window_seconds: u64,
    /// How long the device cookie a login sets stays valid.
    pub device_cookie_days: u64,
    /// Password hashes or verifications at a time (argon2 takes 19 MiB each); a login or
    /// step-up beyond it is refused at once with 429.
    pub password_hash_concurrency: u32,
    /// Always mark the session cookie `Secure` (the gateway serves plain HTTP itself).
    pub cookie_secure: bool,
    /// A TLS-terminating proxy is in front: honour `X-Forwarded-Proto` (Secure cookie) and
    /// `X-Forwarded-For` (the client address) from peers in `trusted_proxy_cidrs`.
    pub trusted_proxy: bool,
    /// The proxies' networks (CIDRs or single addresses). The client is the right-most
    /// `X-Forwarded-For` entry outside them.
    pub trusted_proxy_cidrs: Vec<String>,
    /// How often the live event stream polls account state and ops events.
    pub live_poll_ms: u64,
    /// Let admin-set URLs (the backup endpoint) reach loopback, private, link-local, CGNAT and
    /// unique-local addresses (and plain http to them). Cloud metadata addresses stay refused.
    pub allow_private_urls: bool,
}

impl Default for AdminConfig {
    fn default() -> Self {
        Self {
            bootstrap_username: "admin".to_owned(),
            bootstrap_password: None,
            session_idle_minutes: 30,
            session_absolute_hours: 12,
            login_max_failures_per_ip: 20,
            login_max_failures_per_user: 5,
            login_max_failures_per_device: 5,
            login_window_seconds: 300,
            device_cookie_days: 30,
            password_hash_concurrency: 2,
            cookie_secure: false,
            trusted_proxy: false,
            trusted_proxy_cidrs: DEFAULT_TRUSTED_PROXY_CIDRS.iter().map(|c| (*c).to_owned()).collect(),
            live_poll_ms: 2000,
            allow_private_urls: false,
        }
    }
}

impl std::fmt::Debug for AdminConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminConfig")
            .field("bootstrap_username", &self.bootstrap_username)
            .field("bootstrap_password", &self.bootstrap_password.as_ref().map(|_| "[REDACTED]"))
            .field("session_idle_minutes", &self.session_idle_minutes)
            .field("session_absolute_hours", &self.session_absolute_hours)
            .field("login_max_failures_per_ip", &self.login_max_failures_per_ip)
            .field("login_max_failures_per_user", &self.login_max_failures_per_user)
            .field("login_max_failures_per_device", &self.login_max_failures_per_device)
            .field("login_window_seconds", &self.login_window_seconds)
            .field("device_cookie_days", &self.device_cookie_days)
            .field("password_hash_concurrency", &self.password_hash_concurrency)
            .field("cookie_secure", &self.cookie_secure)
            .field("trusted_proxy", &self.trusted_proxy)
            .field("trusted_proxy_cidrs", &self.trusted_proxy_cidrs)
            .field("live_poll_ms", &self.live_poll_ms)
            .field("allow_private_urls", &self.allow_private_urls)
            .finish()
    }
}

/// A CIDR (`10.0.0.0/8`) or a single address (`10.0.0.5`, a /32 or /128).
fn parse_network(text: &str) -> Option<IpNet> {
    let text = text.trim();
    text.parse::<IpNet>().ok().or_else(|| text.parse::<IpAddr>().ok().map(IpNet::from))
}

impl AdminConfig {
    /// The trusted proxy networks (entries that do not parse were refused by `validate`).
    pub fn trusted_proxy_networks(&self) -> Vec<IpNet> {
        self.trusted_proxy_cidrs.iter().filter_map(|text| parse_network(text)).collect()
    }

    /// Rules serde cannot express; keys relative to the section (`device_cookie_days`).
    pub fn validate(&self) -> Result<(), InvalidConfig> {
        if self.session_idle_minutes == 0 || self.session_absolute_hours == 0 {
            return Err(InvalidConfig::new("session_idle_minutes", "session lifetimes must be at least 1"));
        }
        for (key, value) in [
            ("login_max_failures_per_ip", u64::from(self.login_max_failures_per_ip)),
            ("login_max_failures_per_user", u64::from(self.login_max_failures_per_user)),
            ("login_max_failures_per_device", u64::from(self.login_max_failures_per_device)),
            ("login_window_seconds", self.login_window_seconds),
        ] {
            if value == 0 {
                return Err(InvalidConfig::new(key, "login limits must be at least 1"));
            }
        }
        if !(1..=400).contains(&self.device_cookie_days) {
            return Err(InvalidConfig::new("device_cookie_days", "must be between 1 and 400"));
        }
        if !(1..=64).contains(&self.password_hash_concurrency) {
            return Err(InvalidConfig::new("password_hash_concurrency", "must be between 1 and 64"));
        }
        if let Some(bad) = self.trusted_proxy_cidrs.iter().find(|text| parse_network(text).is_none()) {
            return Err(InvalidConfig::new(
                "trusted_proxy_cidrs",
                &format!("`{bad}` is not a CIDR (10.0.0.0/8) or an IP address"),
            ));
        }
        if self.bootstrap_username.trim().is_empty() {
            return Err(InvalidConfig::new("bootstrap_username", "must not be empty"));
        }
        if self.bootstrap_password.as_ref().is_some_and(|p| p.chars().count() < 10) {
            return Err(InvalidConfig::new("bootstrap_password", "must be at least 10 characters"));
        }
        Ok(())
    }
}

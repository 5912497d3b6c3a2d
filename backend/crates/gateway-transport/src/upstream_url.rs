//! SSRF guard for configured upstream URLs, shared by every provider: `https` only, except
//! plain `http` to a loopback address when explicitly allowed (tests and the simulator). A URL that passes is also one the
//! upstream clients can use exactly as written (the HTTP/1.1 client parses it as an `http::Uri`),
//! so a bad URL is refused at start-up instead of failing every call later.

use std::net::IpAddr;

/// A refused upstream URL. `shown` is the URL without user name, password, query and fragment
/// (any of which may hold a secret), so the error can be printed and logged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("upstream URL `{shown}` refused: {reason}")]
pub struct UrlRefused {
    pub shown: String,
    pub reason: &'static str,
}

impl UrlRefused {
    pub fn new(url: &str, reason: &'static str) -> Self {
        Self { shown: shown(url), reason }
    }
}

/// `url` safe to print: scheme, host, port and path only.
pub fn shown(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => "(not a URL)".to_owned(),
    }
}

/// Validates `url` and returns it without a trailing slash.
pub fn checked_base_url(url: &str, allow_http_loopback: bool) -> Result<String, UrlRefused> {
    let refuse = |reason| UrlRefused::new(url, reason);
    let parsed = url::Url::parse(url).map_err(|_| refuse("not a valid URL"))?;
    if url.parse::<http::Uri>().is_err() || !url.is_ascii() {
        return Err(refuse("not a valid URL as written (ASCII only: punycode hosts, percent-encoded paths)"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(refuse("credentials in the URL are not allowed"));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(refuse("a base URL has no query or fragment"));
    }
    let host = parsed.host_str().filter(|h| !h.is_empty()).ok_or_else(|| refuse("no host"))?;
    match parsed.scheme() {
        "https" => {}
        "http" if allow_http_loopback && is_loopback(host) => {}
        "http" => return Err(refuse("plain http is allowed only to loopback with providers.allow_http_loopback")),
        _ => return Err(refuse("only https is allowed")),
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// An appcast address is a full URL: the base-URL rule minus the "no query" part.
pub fn checked_appcast_url(url: &str, allow_http_loopback: bool) -> Result<String, UrlRefused> {
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let checked = checked_base_url(base, allow_http_loopback).map_err(|e| UrlRefused::new(url, e.reason))?;
    let Some(query) = query else { return Ok(checked) };
    let full = format!("{checked}?{query}");
    if query.contains('#') || full.parse::<http::Uri>().is_err() {
        return Err(UrlRefused::new(url, "not a valid URL as written (no fragment)"));
    }
    Ok(full)
}

fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

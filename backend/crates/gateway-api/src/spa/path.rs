//! Classifies a request path for the SPA: a file of the build, a page route, an API path, or
//! an invalid (traversal) path.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;

use super::{RESERVED_PATHS, RESERVED_PREFIXES};

/// What a decoded request path is, for the dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpaPath {
    /// A file of the build, by its path inside `dist` (`assets/index-1a2b.js`, `favicon.svg`).
    File(String),
    /// A page route of the SPA (`""` for `/`, `accounts/42`): answered with `index.html`.
    Page(String),
    /// An API or host path (`/api/…`, `/v1/…`, `/healthz`): never the SPA.
    Reserved,
    /// Traversal, an empty or dot segment, a backslash, NUL, or invalid UTF-8 after decoding.
    Invalid,
}

/// Decodes the path once and classifies it.
pub fn classify(raw: &str) -> SpaPath {
    let decoded: Cow<'_, str> = match percent_decode_str(raw).decode_utf8() {
        Ok(decoded) => decoded,
        Err(_) => return SpaPath::Invalid,
    };
    let Some(rest) = decoded.strip_prefix('/') else {
        return SpaPath::Invalid;
    };
    if rest.is_empty() {
        return SpaPath::Page(String::new());
    }
    // A trailing slash names the same page (`/accounts/` = `/accounts`).
    let trimmed = rest.strip_suffix('/').unwrap_or(rest);
    let segments: Vec<&str> = trimmed.split('/').collect();
    if segments.iter().any(|s| s.is_empty() || *s == "." || *s == ".." || s.contains(['\\', '\0'])) {
        return SpaPath::Invalid;
    }
    if RESERVED_PATHS.contains(&trimmed) || RESERVED_PREFIXES.iter().any(|p| rest.starts_with(p)) {
        return SpaPath::Reserved;
    }
    let last = segments.last().copied().unwrap_or_default();
    if last.contains('.') { SpaPath::File(trimmed.to_owned()) } else { SpaPath::Page(trimmed.to_owned()) }
}

//! Keeping secrets out of text that may be printed or logged. (Secret types redact their own
//! `Debug`; this is for plain strings that can carry one, such as URLs.)

/// `url` with its user name and password replaced by `[REDACTED]`
/// (`postgres://app:pw@db/x` → `postgres://[REDACTED]@db/x`); anything else unchanged. Works on
/// text that does not parse as a URL too.
pub fn url_userinfo_redacted(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else { return url.to_owned() };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{}[REDACTED]{}", &url[..scheme_end], &rest[at..]),
        None => url.to_owned(),
    }
}

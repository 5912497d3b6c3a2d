//! `Set-Cookie` headers a directive adds to an answer (`set_cookie='a=1; Max-Age=60|b=; Max-Age=0'`),
//! so a client's cookie jar can be tested: attributes are sent as given.

use axum::response::Response;
use http::{HeaderValue, header};

/// Parses a `set_cookie` value: one or more `NAME=VALUE[; attributes]`, separated by `|`.
pub fn set_cookies(value: &str) -> Result<Vec<String>, String> {
    let cookies: Vec<String> = value.split('|').map(str::trim).filter(|c| !c.is_empty()).map(str::to_owned).collect();
    if cookies.is_empty() {
        return Err("`set_cookie` needs NAME=VALUE".into());
    }
    for cookie in &cookies {
        check_cookie(cookie)?;
    }
    Ok(cookies)
}

/// One `Set-Cookie` value: a non-empty token name before `=`, and valid header text.
pub fn check_cookie(cookie: &str) -> Result<(), String> {
    let pair = cookie.split(';').next().unwrap_or("");
    let name = pair.split_once('=').map(|(name, _)| name.trim()).unwrap_or("");
    let is_token = |c: char| c.is_ascii_graphic() && !"()<>@,;:\\\"/[]?={}".contains(c);
    if name.is_empty() || !name.chars().all(is_token) {
        return Err(format!("`set_cookie` needs NAME=VALUE, got `{cookie}`"));
    }
    HeaderValue::from_str(cookie).map_err(|_| format!("`set_cookie` is not header text: `{cookie}`"))?;
    Ok(())
}

/// `response` with one `Set-Cookie` header per cookie (`None`: unchanged).
pub fn with_set_cookies(mut response: Response, cookies: Option<&[String]>) -> Response {
    for cookie in cookies.unwrap_or_default() {
        if let Ok(value) = HeaderValue::from_str(cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

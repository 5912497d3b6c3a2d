//! The dashboard's HTTP answers: files with their caching and security headers, the "not
//! built" page, plain errors.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;

use super::Asset;

/// Hashed build output: the name changes with the content.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Everything else (index.html, favicon): always revalidate with the ETag.
const REVALIDATE: &str = "no-cache";
/// The SPA loads only its own scripts; ECharts and Vue set inline styles.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; \
    font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const NOT_BUILT: &str = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Switchboard — dashboard not built</title></head>\
<body style=\"font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5\">\
<main><h1>Dashboard not built</h1><p>This Switchboard binary was built without the admin dashboard \
(<code>frontend/dist</code> was empty). The gateway and the admin API under <code>/api/admin</code> work as usual.</p>\
<p>To include the dashboard, build it and then the binary:</p>\
<pre>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build\ncargo build -p switchboard</pre>\
<p><code>scripts/run</code> does both when needed.</p></main></body></html>\n";

/// A file of the build.
pub fn asset(path: &str, asset: &Asset, request: &HeaderMap, head: bool) -> Response {
    let etag = format!("\"{}\"", asset.etag);
    let cache = if path.starts_with("assets/") { IMMUTABLE } else { REVALIDATE };
    let not_modified = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|tag| tag.trim() == etag || tag.trim() == "*"));
    let content_type = mime_type(path);
    let mut builder = Response::builder()
        .header(header::CACHE_CONTROL, cache)
        .header(header::ETAG, &etag)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    if content_type.starts_with("text/html") {
        builder = builder
            .header(header::CONTENT_SECURITY_POLICY, CSP)
            .header(header::X_FRAME_OPTIONS, "DENY")
            .header(header::REFERRER_POLICY, "no-referrer");
    }
    let builder = builder.header(header::CONTENT_TYPE, content_type);
    let response = if not_modified {
        builder.status(StatusCode::NOT_MODIFIED).body(Body::empty())
    } else {
        let builder = builder.header(header::CONTENT_LENGTH, asset.bytes.len());
        if head { builder.body(Body::empty()) } else { builder.body(Body::from(asset.bytes.clone().into_owned())) }
    };
    response.unwrap_or_else(|_| plain(StatusCode::INTERNAL_SERVER_ERROR, "internal error"))
}

/// 503 page for a binary built without the dashboard.
pub fn not_built(head: bool) -> Response {
    let body = if head { Body::empty() } else { Body::from(NOT_BUILT) };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

/// A short plain-text answer (404, 400).
pub fn plain(status: StatusCode, message: &'static str) -> Response {
    let mut response = Response::new(Body::from(message));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

/// The content type of a build file, by extension (the build has few kinds).
pub fn mime_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase()).unwrap_or_default();
    match extension.as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

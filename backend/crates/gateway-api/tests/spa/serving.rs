//! Serving a fixture build over the SPA router: content types, caching, fallback rules,
//! conditional requests and the "not built" page.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use gateway_api::spa::{Asset, DashboardAssets, EmbeddedDashboard, spa_routes};
use http_body_util::BodyExt;
use tower::ServiceExt;

const INDEX: &str =
    "<!doctype html><html><head><script type=module src=/assets/index-1a2b3c.js></script></head></html>";

struct Fixture(HashMap<&'static str, &'static str>);

impl DashboardAssets for Fixture {
    fn get(&self, path: &str) -> Option<Asset> {
        self.0.get(path).map(|body| Asset { bytes: Cow::Borrowed(body.as_bytes()), etag: format!("e{}", body.len()) })
    }
}

fn built() -> Arc<dyn DashboardAssets> {
    Arc::new(Fixture(HashMap::from([
        ("index.html", INDEX),
        ("assets/index-1a2b3c.js", "console.log(1)"),
        ("assets/index-1a2b3c.css", "body{}"),
        ("favicon.svg", "<svg/>"),
    ])))
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: String,
}

async fn get(assets: Arc<dyn DashboardAssets>, method: &str, path: &str, etag: Option<&str>) -> Answer {
    let mut request = Request::builder().method(method).uri(path);
    if let Some(etag) = etag {
        request = request.header(header::IF_NONE_MATCH, etag);
    }
    let request = request.body(Body::empty()).expect("a valid request");
    let response = spa_routes(assets).oneshot(request).await.expect("the router is infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.expect("a body").to_bytes();
    Answer { status, headers, body: String::from_utf8_lossy(&bytes).into_owned() }
}

fn header_of(answer: &Answer, name: header::HeaderName) -> &str {
    answer.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

#[tokio::test]
async fn page_routes_get_index_html_revalidated_with_security_headers() {
    for path in ["/", "/accounts", "/accounts/7", "/settings/routing/", "/requests?range=24h"] {
        let answer = get(built(), "GET", path, None).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert_eq!(answer.body, INDEX, "{path}");
        assert_eq!(header_of(&answer, header::CONTENT_TYPE), "text/html; charset=utf-8");
        assert_eq!(header_of(&answer, header::CACHE_CONTROL), "no-cache");
        assert!(header_of(&answer, header::CONTENT_SECURITY_POLICY).contains("script-src 'self'"));
        assert_eq!(header_of(&answer, header::X_FRAME_OPTIONS), "DENY");
    }
}

#[tokio::test]
async fn hashed_assets_are_immutable_with_their_content_type() {
    let js = get(built(), "GET", "/assets/index-1a2b3c.js", None).await;
    assert_eq!(js.status, StatusCode::OK);
    assert_eq!(js.body, "console.log(1)");
    assert_eq!(header_of(&js, header::CONTENT_TYPE), "text/javascript; charset=utf-8");
    assert_eq!(header_of(&js, header::CACHE_CONTROL), "public, max-age=31536000, immutable");
    assert_eq!(header_of(&js, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
    let css = get(built(), "GET", "/assets/index-1a2b3c.css", None).await;
    assert_eq!(header_of(&css, header::CONTENT_TYPE), "text/css; charset=utf-8");
    let icon = get(built(), "GET", "/favicon.svg", None).await;
    assert_eq!(header_of(&icon, header::CONTENT_TYPE), "image/svg+xml");
    assert_eq!(header_of(&icon, header::CACHE_CONTROL), "no-cache");
}

#[tokio::test]
async fn missing_files_and_api_paths_are_404_not_the_spa() {
    for path in ["/assets/index-000000.js", "/robots.txt", "/api/other", "/v1/unknown", "/metrics"] {
        let answer = get(built(), "GET", path, None).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
        assert_ne!(answer.body, INDEX, "{path}");
    }
    let post = get(built(), "POST", "/accounts", None).await;
    assert_eq!(post.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn traversal_is_refused() {
    for path in ["/assets/%2e%2e/%2e%2e/Cargo.toml", "/..%2f..%2fetc/passwd", "/assets/..%5cindex.html"] {
        let answer = get(built(), "GET", path, None).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{path}");
    }
}

#[tokio::test]
async fn etag_revalidation_and_head() {
    let first = get(built(), "GET", "/", None).await;
    let etag = header_of(&first, header::ETAG).to_owned();
    assert!(!etag.is_empty());
    let again = get(built(), "GET", "/", Some(&etag)).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.body.is_empty());
    let head = get(built(), "HEAD", "/assets/index-1a2b3c.js", None).await;
    assert_eq!(head.status, StatusCode::OK);
    assert!(head.body.is_empty());
    assert_eq!(header_of(&head, header::CONTENT_LENGTH), "14");
}

#[tokio::test]
async fn without_a_build_pages_say_how_to_build_it() {
    let empty: Arc<dyn DashboardAssets> = Arc::new(Fixture(HashMap::new()));
    let answer = get(empty.clone(), "GET", "/", None).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(answer.body.contains("Dashboard not built"), "{}", answer.body);
    assert!(answer.body.contains("npm run build"));
    assert_eq!(header_of(&answer, header::CONTENT_TYPE), "text/html; charset=utf-8");
    let asset = get(empty, "GET", "/assets/index-1a2b3c.js", None).await;
    assert_eq!(asset.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_embedded_build_is_served_or_reported_missing() {
    // Whatever `frontend/dist` held at build time: an index page, or the "not built" page.
    let embedded: Arc<dyn DashboardAssets> = Arc::new(EmbeddedDashboard);
    let has_index = embedded.get("index.html").is_some();
    let answer = get(embedded.clone(), "GET", "/accounts", None).await;
    if has_index {
        assert_eq!(answer.status, StatusCode::OK);
        assert!(answer.body.contains("<div id=\"app\""), "index.html mounts the SPA: {}", answer.body);
    } else {
        assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    }
    assert!(embedded.get(".gitkeep").is_none(), "the placeholder is not served");
}

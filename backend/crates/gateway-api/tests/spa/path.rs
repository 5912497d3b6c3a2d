//! Path classification: page routes, build files, API paths, traversal.

use gateway_api::spa::{SpaPath, classify};

#[test]
fn page_routes_and_files_are_told_apart() {
    assert_eq!(classify("/"), SpaPath::Page(String::new()));
    assert_eq!(classify("/accounts"), SpaPath::Page("accounts".into()));
    assert_eq!(classify("/accounts/42/"), SpaPath::Page("accounts/42".into()));
    assert_eq!(classify("/settings/routing"), SpaPath::Page("settings/routing".into()));
    assert_eq!(classify("/assets/index-1a2b3c.js"), SpaPath::File("assets/index-1a2b3c.js".into()));
    assert_eq!(classify("/favicon.svg"), SpaPath::File("favicon.svg".into()));
}

#[test]
fn api_and_host_paths_are_never_the_spa() {
    for path in ["/api", "/api/admin/nope", "/api/other", "/v1", "/v1/unknown", "/healthz", "/readyz", "/metrics"] {
        assert_eq!(classify(path), SpaPath::Reserved, "{path}");
    }
}

#[test]
fn traversal_and_odd_segments_are_refused() {
    for path in [
        "/../Cargo.toml",
        "/assets/../../etc/passwd",
        "/%2e%2e/Cargo.toml",
        "/assets/%2E%2E%2Fsecret.js",
        "/assets/..%5c..%5cwin.ini",
        "/a//b",
        "/./index.html",
        "/assets/%00.js",
        "/%ff%fe",
        "relative",
    ] {
        assert_eq!(classify(path), SpaPath::Invalid, "{path}");
    }
}

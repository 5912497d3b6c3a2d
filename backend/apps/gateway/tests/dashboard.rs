//! The dashboard on the real binary: `/` and page routes are the SPA (or the "not built" page
//! when `frontend/dist` was empty at build time), while the APIs keep their own answers.

use crate::gateway::Gateway;

#[tokio::test]
async fn root_and_page_routes_serve_the_dashboard_not_the_admin_api() {
    let gateway = Gateway::start(vec![]).await;
    let client = gateway.client();
    for path in ["/", "/accounts", "/requests/abc", "/settings/routing"] {
        let response = client.get(format!("{}{path}", gateway.url)).send().await.expect("gateway reachable");
        let status = response.status().as_u16();
        let content_type =
            response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        let body = response.text().await.unwrap_or_default();
        assert!(content_type.starts_with("text/html"), "{path}: {status} {content_type} {body}");
        match status {
            200 => assert!(body.contains("<div id=\"app\""), "{path}: the SPA's index.html: {body}"),
            503 => assert!(body.contains("Dashboard not built"), "{path}: {body}"),
            other => panic!("{path}: unexpected status {other}: {body}"),
        }
    }
    let admin = client.get(format!("{}/api/admin/nope", gateway.url)).send().await.expect("gateway reachable");
    assert_eq!(admin.status(), 404);
    let envelope: serde_json::Value = admin.json().await.expect("the admin envelope");
    assert_eq!(envelope["error"]["code"], "route_not_found");
    let missing = client.get(format!("{}/assets/missing-000.js", gateway.url)).send().await.expect("reachable");
    assert_eq!(missing.status(), 404);
    let ready = client.get(format!("{}/readyz", gateway.url)).send().await.expect("reachable");
    assert_eq!(ready.status(), 200);
}

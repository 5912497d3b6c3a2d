//! Every route of the OpenAPI document, swept: without credentials (401), with a session but
//! without the CSRF token on unsafe methods (403), with a full session (the route exists), and
//! `Cache-Control: no-store` on every answer.

use reqwest::Method;
use serde_json::{Value, json};

use super::{Admin, gateway};

/// (method, concrete path) for every operation of the document.
async fn operations(admin: &Admin) -> Vec<(Method, String, String)> {
    let doc = admin.ok("/openapi.json").await;
    assert_eq!(doc["openapi"].as_str().map(|v| &v[..3]), Some("3.1"));
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                let concrete = path
                    .replace("/usage/records/{id}", "/usage/records/0190b7a2-0000-7000-8000-000000000000")
                    .replace("/sessions/{id}", "/sessions/ffffffffffffffff")
                    .replace("{provider}", "openai")
                    .replace("{kind}", "error_rate")
                    .replace("{id}", "999999");
                let relative = concrete.strip_prefix("/api/admin").expect("under /api/admin").to_owned();
                out.push((method.to_uppercase().parse().expect("method"), relative, path.clone()));
            }
        }
    }
    out
}

fn is_unsafe(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD)
}

#[tokio::test]
async fn every_documented_route_refuses_anonymous_and_csrf_less_calls_and_exists_for_admins() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let anonymous = Admin::anonymous(&g);
    let ops = operations(&admin).await;
    assert!(ops.len() >= 46, "expected every admin operation in the document, found {}", ops.len());
    let public = ["/auth/login", "/openapi.json"];
    let mut no_csrf = admin.clone();
    no_csrf.csrf = None;
    let mut request_ids = std::collections::HashSet::new();
    for (method, path, template) in &ops {
        let body = is_unsafe(method).then(|| json!({}));
        if !public.contains(&path.as_str()) {
            let answer = anonymous.send(method.clone(), path, body.clone()).await;
            assert_eq!(answer.status, 401, "{method} {path} without credentials: {}", answer.text);
            assert_eq!(answer.code(), "unauthenticated");
            assert_eq!(
                answer.headers.get("cache-control").and_then(|v| v.to_str().ok()),
                Some("no-store"),
                "{method} {path}"
            );
            if is_unsafe(method) {
                let answer = no_csrf.send(method.clone(), path, body.clone()).await;
                assert_eq!(answer.status, 403, "{method} {path} without CSRF: {}", answer.text);
                assert_eq!(answer.code(), "csrf_failed");
            }
        }
        // The event streams are long-lived, logout ends the session, restart restarts the
        // process (tested in `self_update`).
        if template.ends_with("/events") || path == "/auth/logout" || path == "/system/restart" {
            continue;
        }
        let answer = admin.send(method.clone(), path, body).await;
        assert_ne!(answer.code(), "route_not_found", "{method} {path} is documented but not routed");
        assert_ne!(answer.status, 405, "{method} {path}");
        assert!(answer.status.as_u16() < 500, "{method} {path}: {} {}", answer.status, answer.text);
        assert_eq!(
            answer.headers.get("cache-control").and_then(|v| v.to_str().ok()),
            Some("no-store"),
            "{method} {path}"
        );
        let request_id = answer.headers.get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or_default();
        assert!(uuid::Uuid::parse_str(request_id).is_ok(), "{method} {path}: X-Request-Id {request_id:?}");
        assert!(request_ids.insert(request_id.to_owned()), "{method} {path}: request id reused");
        if !answer.text.is_empty() {
            let _: Value = serde_json::from_str(&answer.text).unwrap_or_else(|_| panic!("{method} {path}: not JSON"));
        }
    }
}

#[tokio::test]
async fn unknown_admin_paths_and_methods_answer_with_the_envelope() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let unknown = admin.get("/no-such-thing").await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.code(), "route_not_found");
    assert_eq!(unknown.headers.get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"));
    let wrong_method = admin.send(Method::PUT, "/accounts", Some(json!({}))).await;
    assert_eq!(wrong_method.status, 405);
    assert_eq!(wrong_method.code(), "method_not_allowed");
    let bad_id = admin.get("/accounts/not-a-number").await;
    assert_eq!(bad_id.status, 422);
    assert_eq!(bad_id.json()["error"]["fields"][0]["field"], "id");
    let bad_query = admin.get("/accounts?limit=0").await;
    assert_eq!(bad_query.status, 422);
    let unknown_query = admin.get("/accounts?bogus=1").await;
    assert_eq!(unknown_query.status, 422);
    let not_json = g
        .client()
        .post(format!("{}/groups", admin.base))
        .header("cookie", format!("sb_admin_session={}", admin.cookie.clone().unwrap_or_default()))
        .header("x-switchboard-csrf", admin.csrf.clone().unwrap_or_default())
        .header("content-type", "text/plain")
        .body("name=x")
        .send()
        .await
        .expect("request");
    assert_eq!(not_json.status(), 415);
    let broken = g
        .client()
        .post(format!("{}/groups", admin.base))
        .header("cookie", format!("sb_admin_session={}", admin.cookie.clone().unwrap_or_default()))
        .header("x-switchboard-csrf", admin.csrf.clone().unwrap_or_default())
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .expect("request");
    assert_eq!(broken.status(), 400);
    let body: Value = broken.json().await.expect("json");
    assert_eq!(body["error"]["code"], "invalid_json");
}

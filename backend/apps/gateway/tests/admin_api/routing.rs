//! The edges of the admin router: a path no router claims never reaches the session store,
//! and the admin body limit is the documented 16 MiB, enforced with a clear envelope.

use std::time::Duration;

use serde_json::json;

use super::{Admin, gateway, redis_cli};
use crate::wire;

#[tokio::test]
async fn unknown_paths_answer_404_without_touching_the_admin_session() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let cookie = admin.cookie.clone().expect("session cookie");
    // Mark the stored session idle-expired: any lookup through the session store deletes it.
    let prefix = g.env_value("SWITCHBOARD_REDIS_KEY_PREFIX").expect("prefix").to_owned();
    let key = redis_cli(&["--scan", "--pattern", &format!("{prefix}:admin:session:*")])
        .lines()
        .next()
        .expect("one session key")
        .to_owned();
    let mut stored: serde_json::Value = serde_json::from_str(&redis_cli(&["GET", &key])).expect("session json");
    stored["idleExpiresAt"] = json!("2000-01-01T00:00:00Z");
    redis_cli(&["SET", &key, &stored.to_string(), "KEEPTTL"]);

    // Page routes are the dashboard's (`dashboard.rs`); paths no router claims are 404.
    for path in ["/api", "/api/adminx", "/missing.js", "/assets/missing-000.css"] {
        let response = g
            .client()
            .get(format!("{}{path}", g.url))
            .header("cookie", format!("sb_admin_session={cookie}"))
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), 404, "{path}");
        let body: serde_json::Value = response.json().await.expect("json");
        assert_eq!(body["error"]["code"], "not_found", "{path}: {body}");
    }
    // The dashboard's page routes do not look at the session either.
    for path in ["/", "/accounts"] {
        let response = g
            .client()
            .get(format!("{}{path}", g.url))
            .header("cookie", format!("sb_admin_session={cookie}"))
            .send()
            .await
            .expect("sent");
        assert!(matches!(response.status().as_u16(), 200 | 503), "{path}: {}", response.status());
    }
    assert_eq!(redis_cli(&["EXISTS", &key]), "1", "the session store was not consulted");

    // An admin route does consult it (and deletes the expired session): the probe works.
    assert_eq!(admin.get("/accounts").await.status, 401);
    assert_eq!(redis_cli(&["EXISTS", &key]), "0");
}

#[tokio::test]
async fn the_admin_body_limit_is_16_mib_with_a_clear_envelope() {
    let g = gateway(vec![], &[]).await;
    let anonymous = Admin::anonymous(&g);
    // 3 MiB is within the documented limit (above axum's 2 MiB default): read and judged.
    let answer = anonymous
        .post("/auth/login", json!({"username": "x".repeat(3 * 1024 * 1024), "password": "not-the-password"}))
        .await;
    assert_ne!(answer.status, 413, "{}", &answer.text[..answer.text.len().min(300)]);
    assert_eq!(answer.status, 401, "{}", &answer.text[..answer.text.len().min(300)]);

    // Over 16 MiB: 413 naming the limit, before the body is read whole.
    let answer = anonymous.post("/auth/login", json!({"username": "x".repeat(17 * 1024 * 1024)})).await;
    assert_eq!(answer.status, 413);
    assert_eq!(answer.code(), "body_too_large");
    assert!(answer.text.contains("16777216"), "{}", answer.text);
    assert_eq!(answer.headers.get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"));

    // Broken chunked framing is the request's fault, not its size.
    let mut stream = wire::connect(&g.url).await;
    let request = "POST /api/admin/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                   Transfer-Encoding: chunked\r\n\r\n4\r\n{\"us\r\nnot-a-size\r\n";
    let answer = wire::exchange(&mut stream, request.as_bytes(), Duration::from_secs(10)).await.expect("answer");
    assert_eq!(answer.status, 400, "{answer:?}");
    assert_eq!(answer.json()["error"]["code"], "invalid_body", "{answer:?}");
}

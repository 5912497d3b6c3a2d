//! Login, cookies, session expiry, logout, CSRF, rate limits, API keys, password change.

use reqwest::Method;
use serde_json::json;

use super::{Admin, PASSWORD, gateway, redis_cli, session_cookie, set_cookie_header};

#[tokio::test]
async fn login_sets_a_strict_http_only_cookie_and_session_reports_the_csrf_token() {
    let g = gateway(vec![], &[]).await;
    let anonymous = Admin::anonymous(&g);
    let answer = anonymous.post("/auth/login", json!({"username": "admin", "password": PASSWORD})).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let cookie = set_cookie_header(&answer, "sb_admin_session").unwrap_or_default();
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/api/admin"] {
        assert!(cookie.contains(flag), "cookie lacks {flag}: {cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain HTTP without a trusted proxy: no Secure flag: {cookie}");
    assert_eq!(answer.headers.get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"));
    let body = answer.json();
    assert_eq!(body["user"]["username"], "admin");
    let csrf = body["session"]["csrfToken"].as_str().expect("csrf token").to_owned();

    let admin = Admin::login(&g).await;
    let session = admin.ok("/auth/session").await;
    assert_eq!(session["method"], "session");
    assert_eq!(session["user"]["username"], "admin");
    assert!(session["session"]["csrfToken"].as_str().is_some_and(|t| !t.is_empty() && t != csrf));
    assert!(session["user"]["lastLoginAt"].is_string());
}

#[tokio::test]
async fn wrong_credentials_are_one_generic_401_and_bad_bodies_are_envelope_errors() {
    let g = gateway(vec![], &[]).await;
    let anonymous = Admin::anonymous(&g);
    let wrong_password =
        anonymous.post("/auth/login", json!({"username": "admin", "password": "nope-nope-nope"})).await;
    let unknown_user = anonymous.post("/auth/login", json!({"username": "ghost", "password": "nope-nope-nope"})).await;
    assert_eq!(wrong_password.status, 401);
    assert_eq!(unknown_user.status, 401);
    assert_eq!(wrong_password.code(), "invalid_credentials");
    assert_eq!(wrong_password.json()["error"]["message"], unknown_user.json()["error"]["message"]);
    let missing = anonymous.post("/auth/login", json!({"username": "admin"})).await;
    assert_eq!(missing.status, 422);
    assert_eq!(missing.json()["error"]["fields"][0]["field"], "body");
    let wrong_type = anonymous.post("/auth/login", json!({"username": "admin", "password": 5})).await;
    assert_eq!(wrong_type.status, 422);
    assert_eq!(wrong_type.json()["error"]["fields"][0]["field"], "password");
}

#[tokio::test]
async fn login_is_rate_limited_per_username_and_per_address() {
    let g = gateway(
        vec![],
        &[("SWITCHBOARD_ADMIN_LOGIN_MAX_FAILURES_PER_USER", "3"), ("SWITCHBOARD_ADMIN_LOGIN_MAX_FAILURES_PER_IP", "6")],
    )
    .await;
    let anonymous = Admin::anonymous(&g);
    for _ in 0..3 {
        let a = anonymous.post("/auth/login", json!({"username": "admin", "password": "wrong-password-1"})).await;
        assert_eq!(a.status, 401);
    }
    // Even the right password is refused while the username is limited.
    let limited = anonymous.post("/auth/login", json!({"username": "admin", "password": PASSWORD})).await;
    assert_eq!(limited.status, 429, "{}", limited.text);
    assert_eq!(limited.code(), "rate_limited");
    let retry: u64 = limited
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After");
    assert!((1..=300).contains(&retry));
    assert_eq!(limited.json()["error"]["retryAfterSeconds"], retry);
    // Other usernames from the same address count toward the address limit.
    for name in ["a1", "a2", "a3"] {
        let a = anonymous.post("/auth/login", json!({"username": name, "password": "wrong-password-1"})).await;
        assert_eq!(a.status, 401);
    }
    let by_address =
        anonymous.post("/auth/login", json!({"username": "someone", "password": "wrong-password-1"})).await;
    assert_eq!(by_address.status, 429);
}

#[tokio::test]
async fn no_session_expired_session_and_revoked_session_get_401() {
    let g = gateway(vec![], &[]).await;
    let anonymous = Admin::anonymous(&g);
    let none = anonymous.get("/accounts").await;
    assert_eq!(none.status, 401);
    assert_eq!(none.code(), "unauthenticated");
    let mut forged = anonymous.clone();
    forged.cookie = Some("not-a-session".to_owned());
    assert_eq!(forged.get("/accounts").await.status, 401);

    // Expired: the stored idle deadline is in the past (the store also checks the deadlines,
    // not only the key TTL).
    let admin = Admin::login(&g).await;
    assert_eq!(admin.get("/accounts").await.status, 200);
    let prefix = g.env_value("SWITCHBOARD_REDIS_KEY_PREFIX").expect("prefix").to_owned();
    let keys = redis_cli(&["--scan", "--pattern", &format!("{prefix}:admin:session:*")]);
    let key = keys.lines().next().expect("one session key").to_owned();
    let stored: serde_json::Value = serde_json::from_str(&redis_cli(&["GET", &key])).expect("session json");
    let mut expired = stored.clone();
    expired["idleExpiresAt"] = json!("2000-01-01T00:00:00Z");
    redis_cli(&["SET", &key, &expired.to_string(), "KEEPTTL"]);
    let answer = admin.get("/accounts").await;
    assert_eq!(answer.status, 401, "{}", answer.text);
    assert_eq!(redis_cli(&["EXISTS", &key]), "0", "an expired session is deleted");

    // Absolute expiry too.
    let admin = Admin::login(&g).await;
    let keys = redis_cli(&["--scan", "--pattern", &format!("{prefix}:admin:session:*")]);
    let key = keys.lines().next().expect("session key").to_owned();
    let mut stored: serde_json::Value = serde_json::from_str(&redis_cli(&["GET", &key])).expect("session json");
    stored["absoluteExpiresAt"] = json!("2000-01-01T00:00:00Z");
    redis_cli(&["SET", &key, &stored.to_string(), "KEEPTTL"]);
    assert_eq!(admin.get("/accounts").await.status, 401);

    // Logout revokes and clears the cookie.
    let admin = Admin::login(&g).await;
    let out = admin.send(Method::POST, "/auth/logout", None).await;
    assert_eq!(out.status, 204);
    assert!(set_cookie_header(&out, "sb_admin_session").is_some_and(|c| c.contains("Max-Age=0")));
    assert_eq!(admin.get("/accounts").await.status, 401);
}

#[tokio::test]
async fn unsafe_methods_need_the_sessions_csrf_token() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let mut missing = admin.clone();
    missing.csrf = None;
    let refused = missing.post("/groups", json!({"name": "g"})).await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.code(), "csrf_failed");
    let mut wrong = admin.clone();
    wrong.csrf = Some("x".repeat(43));
    assert_eq!(wrong.post("/groups", json!({"name": "g"})).await.status, 403);
    assert_eq!(wrong.delete("/keys/1").await.status, 403);
    assert_eq!(wrong.patch("/settings", json!({})).await.status, 403);
    // Another session's token does not fit this session.
    let other = Admin::login(&g).await;
    let mut crossed = admin.clone();
    crossed.csrf = other.csrf.clone();
    assert_eq!(crossed.post("/groups", json!({"name": "g"})).await.status, 403);
    // Safe methods need no token; the right token passes.
    assert_eq!(missing.get("/groups").await.status, 200);
    assert_eq!(admin.post("/groups", json!({"name": "g"})).await.status, 201);
}

#[tokio::test]
async fn api_keys_authenticate_automation_without_csrf_and_can_be_removed() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let refused = admin.post("/auth/api-key", json!({"password": "wrong-password-x"})).await;
    assert_eq!(refused.status, 403);
    let created = admin.post("/auth/api-key", json!({"password": PASSWORD})).await;
    assert_eq!(created.status, 201, "{}", created.text);
    let key = created.json()["apiKey"].as_str().expect("plaintext once").to_owned();
    assert!(key.starts_with("sb-admin-"));
    let mut bot = Admin::anonymous(&g);
    bot.bearer = Some(key.clone());
    let session = bot.ok("/auth/session").await;
    assert_eq!(session["method"], "api_key");
    assert!(session["session"].is_null());
    assert_eq!(bot.post("/groups", json!({"name": "from-bot"})).await.status, 201, "no CSRF needed with a key");
    let pool = g.pool().await;
    let (action, _, _) = super::last_audit(&pool).await;
    assert_eq!(action, "group.create");
    let actor: String = sqlx::query_scalar("SELECT actor_name FROM admin_audit_events ORDER BY id DESC LIMIT 1")
        .fetch_one(&pool)
        .await
        .expect("actor");
    assert_eq!(actor, "admin (api key)");
    let mut wrong = bot.clone();
    wrong.bearer = Some("sb-admin-wrong".to_owned());
    assert_eq!(wrong.get("/accounts").await.status, 401);
    assert_eq!(admin.delete("/auth/api-key").await.status, 204);
    assert_eq!(bot.get("/accounts").await.status, 401);
}

#[tokio::test]
async fn password_change_revokes_other_sessions_and_sessions_can_be_listed_and_revoked() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let other = Admin::login(&g).await;
    let third = Admin::login(&g).await;
    let sessions = admin.ok("/auth/sessions").await;
    let items = sessions["items"].as_array().expect("items");
    assert_eq!(items.len(), 3);
    assert_eq!(items.iter().filter(|s| s["current"] == true).count(), 1);
    let third_id = third.ok("/auth/session").await["session"]["id"].as_str().expect("id").to_owned();
    assert_eq!(admin.delete(&format!("/auth/sessions/{third_id}")).await.status, 204);
    assert_eq!(third.get("/accounts").await.status, 401);
    assert_eq!(admin.delete("/auth/sessions/0000000000000000").await.status, 404);

    let weak = admin.post("/auth/password", json!({"currentPassword": PASSWORD, "newPassword": "short"})).await;
    assert_eq!(weak.status, 422);
    assert_eq!(weak.json()["error"]["fields"][0]["field"], "newPassword");
    let wrong = admin
        .post("/auth/password", json!({"currentPassword": "not-it-at-all", "newPassword": "a-new-password-99"}))
        .await;
    assert_eq!(wrong.status, 422);
    let changed =
        admin.post("/auth/password", json!({"currentPassword": PASSWORD, "newPassword": "a-new-password-99"})).await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    assert_eq!(changed.json()["revokedSessions"], 1);
    assert_eq!(other.get("/accounts").await.status, 401);
    // The changing session was replaced: a new cookie, the same CSRF token.
    assert_eq!(admin.get("/accounts").await.status, 401, "the old cookie ended with the old password");
    let mut admin = admin.clone();
    admin.cookie = Some(session_cookie(&changed).expect("a new session cookie"));
    assert_eq!(changed.json()["session"]["csrfToken"].as_str(), admin.csrf.as_deref());
    assert_eq!(admin.get("/accounts").await.status, 200);
    let anonymous = Admin::anonymous(&g);
    assert_eq!(anonymous.post("/auth/login", json!({"username": "admin", "password": PASSWORD})).await.status, 401);
    Admin::login_as(&g, "admin", "a-new-password-99").await;
    let (action, _, details) = super::last_audit(&g.pool().await).await;
    assert_eq!(action, "admin_user.password_change");
    assert_eq!(details, json!({}));
}

#[tokio::test]
async fn a_trusted_tls_proxy_gets_secure_cookies() {
    let g = gateway(vec![], &[("SWITCHBOARD_ADMIN_TRUSTED_PROXY", "true")]).await;
    let response = g
        .client()
        .post(format!("{}/api/admin/auth/login", g.url))
        .header("x-forwarded-proto", "https")
        .header("x-forwarded-for", "203.0.113.9")
        .json(&json!({"username": "admin", "password": PASSWORD}))
        .send()
        .await
        .expect("login");
    assert_eq!(response.status(), 200);
    let cookie = response.headers().get("set-cookie").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    assert!(cookie.contains("; Secure"), "{cookie}");
    let admin = Admin::login(&g).await;
    let sessions = admin.ok("/auth/sessions").await;
    assert!(sessions["items"].as_array().expect("items").iter().any(|s| s["ip"] == "203.0.113.9"));
    let _ = session_cookie;
}

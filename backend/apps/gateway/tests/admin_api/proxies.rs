//! The client address behind a proxy, on the real binary: with `admin.trusted_proxy`, the
//! right-most `X-Forwarded-For` address that is not a trusted proxy is the client (what the
//! client wrote itself is ignored), and forwarded headers count only from a trusted peer.

use serde_json::json;

use super::{Admin, PASSWORD, gateway};

/// The addresses recorded for the admin's sessions.
async fn session_addresses(admin: &Admin) -> Vec<String> {
    let sessions = admin.ok("/auth/sessions").await;
    sessions["items"].as_array().expect("items").iter().filter_map(|s| s["ip"].as_str().map(str::to_owned)).collect()
}

#[tokio::test]
async fn the_client_is_the_rightmost_forwarded_address_that_is_not_a_trusted_proxy() {
    let g = gateway(vec![], &[("SWITCHBOARD_ADMIN_TRUSTED_PROXY", "true")]).await;
    // The client wrote 198.51.100.1 itself; the edge proxy appended the address it saw
    // (203.0.113.9), an inner proxy on a private network appended the edge (10.0.0.5).
    let mut admin = Admin::anonymous(&g);
    admin.forwarded_for = Some("198.51.100.1, 203.0.113.9, 10.0.0.5".to_owned());
    assert_eq!(admin.sign_in("admin", PASSWORD).await.status, 200);
    assert_eq!(session_addresses(&admin).await, ["203.0.113.9"]);

    // Rotating the self-written hop does not escape the per-address limit.
    let mut attacker = Admin::anonymous(&g);
    for n in 0..20 {
        attacker.forwarded_for = Some(format!("192.0.2.{n}, 203.0.113.50"));
        let a =
            attacker.post("/auth/login", json!({"username": format!("u{n}"), "password": "wrong-password-1"})).await;
        assert_eq!(a.status, 401, "{}", a.text);
    }
    attacker.forwarded_for = Some("192.0.2.99, 203.0.113.50".to_owned());
    let limited = attacker.post("/auth/login", json!({"username": "u99", "password": "wrong-password-1"})).await;
    assert_eq!(limited.status, 429, "{}", limited.text);
    // Another client behind the same proxies is not affected.
    let mut neighbour = Admin::anonymous(&g);
    neighbour.forwarded_for = Some("203.0.113.51".to_owned());
    assert_eq!(neighbour.sign_in("admin", PASSWORD).await.status, 200);
}

#[tokio::test]
async fn forwarded_headers_from_a_peer_that_is_not_a_trusted_proxy_are_ignored() {
    // The gateway's peer in tests is 127.0.0.1, outside this list.
    let g = gateway(
        vec![],
        &[("SWITCHBOARD_ADMIN_TRUSTED_PROXY", "true"), ("SWITCHBOARD_ADMIN_TRUSTED_PROXY_CIDRS", r#"["10.0.0.0/8"]"#)],
    )
    .await;
    let mut admin = Admin::anonymous(&g);
    admin.forwarded_for = Some("203.0.113.9".to_owned());
    let answer = admin.sign_in("admin", PASSWORD).await;
    assert_eq!(answer.status, 200);
    assert_eq!(session_addresses(&admin).await, ["127.0.0.1"]);
    // X-Forwarded-Proto is ignored as well: no Secure cookie over plain HTTP.
    let response = g
        .client()
        .post(format!("{}/api/admin/auth/login", g.url))
        .header("x-forwarded-proto", "https")
        .json(&json!({"username": "admin", "password": PASSWORD}))
        .send()
        .await
        .expect("login");
    let cookie = response.headers().get("set-cookie").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    assert!(!cookie.contains("Secure"), "{cookie}");
}

#[tokio::test]
async fn an_invalid_trusted_proxy_list_is_refused_at_start() {
    let g = gateway(vec![], &[]).await;
    let output = g
        .command()
        .arg("migrate")
        .env("SWITCHBOARD_ADMIN_TRUSTED_PROXY_CIDRS", r#"["10.0.0.0/33"]"#)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2), "a configuration error");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("admin.trusted_proxy_cidrs"), "{stderr}");
}

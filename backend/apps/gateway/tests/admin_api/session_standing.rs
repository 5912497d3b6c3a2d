//! Sessions follow their admin on the real binary: disabling, deleting or re-passwording an
//! admin (through the API, or by an operator in SQL) ends every session of that admin, on every
//! replica; the session that changed the password is replaced by a new one.

use std::time::Duration;

use futures_util::StreamExt;

use gateway_admin::passwords::hash_password;
use reqwest::StatusCode;
use serde_json::json;
use test_support::wait_until;

use super::{Admin, PASSWORD, gateway, session_cookie};

/// Waits until `admin`'s session is refused with 401.
async fn until_refused(admin: &Admin, what: &str) {
    wait_until(what, Duration::from_secs(10), || async {
        (admin.get("/accounts").await.status == StatusCode::UNAUTHORIZED).then_some(())
    })
    .await
    .expect("the session is refused");
}

#[tokio::test]
async fn a_disabled_admin_loses_every_session_at_once() {
    let g = gateway(vec![], &[]).await;
    let (first, second) = (Admin::login(&g).await, Admin::login(&g).await);
    assert_eq!(first.get("/accounts").await.status, 200);
    let pool = g.pool().await;
    sqlx::query("UPDATE admin_users SET enabled = false WHERE username = 'admin'")
        .execute(&pool)
        .await
        .expect("disable");
    until_refused(&first, "the first session to end").await;
    assert_eq!(second.get("/accounts").await.status, 401, "every session of the admin ended");
    assert_eq!(second.get("/auth/session").await.code(), "unauthenticated");
    // Enabling the admin again does not bring the sessions back; a new login works.
    sqlx::query("UPDATE admin_users SET enabled = true WHERE username = 'admin'").execute(&pool).await.expect("enable");
    assert_eq!(first.get("/accounts").await.status, 401);
    Admin::login(&g).await;
}

#[tokio::test]
async fn a_deleted_admin_loses_every_session() {
    let g = gateway(vec![], &[]).await;
    let pool = g.pool().await;
    let hash = hash_password("second-admin-password").await.expect("hash");
    sqlx::query("INSERT INTO admin_users (username, password_hash) VALUES ('ops', $1)")
        .bind(&hash.0)
        .execute(&pool)
        .await
        .expect("second admin");
    let ops = Admin::login_as(&g, "ops", "second-admin-password").await;
    let admin = Admin::login(&g).await;
    assert_eq!(ops.get("/accounts").await.status, 200);
    sqlx::query("DELETE FROM admin_users WHERE username = 'ops'").execute(&pool).await.expect("delete");
    until_refused(&ops, "the deleted admin's session to end").await;
    assert_eq!(admin.get("/accounts").await.status, 200, "other admins keep their sessions");
}

#[tokio::test]
async fn a_password_set_by_an_operator_ends_every_session() {
    let g = gateway(vec![], &[]).await;
    let (first, second) = (Admin::login(&g).await, Admin::login(&g).await);
    let hash = hash_password("reset-by-operator-1").await.expect("hash");
    let pool = g.pool().await;
    sqlx::query("UPDATE admin_users SET password_hash = $1 WHERE username = 'admin'")
        .bind(&hash.0)
        .execute(&pool)
        .await
        .expect("reset");
    until_refused(&first, "the first session to end").await;
    assert_eq!(second.get("/accounts").await.status, 401);
    Admin::login_as(&g, "admin", "reset-by-operator-1").await;
}

#[tokio::test]
async fn a_password_change_replaces_the_changing_session_on_every_replica_and_ends_the_others() {
    let g = gateway(vec![], &[]).await;
    let replica = g.replica().await;
    let mut admin = Admin::login(&g).await;
    let other = Admin::login(&g).await;
    let mut on_replica = admin.clone();
    on_replica.base = format!("{}/api/admin", replica.url);
    // The replica knows the admin (and its old credentials) before the change.
    assert_eq!(on_replica.get("/accounts").await.status, 200);
    let changed =
        admin.post("/auth/password", json!({"currentPassword": PASSWORD, "newPassword": "a-new-password-99"})).await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    assert_eq!(other.get("/accounts").await.status, 401);
    assert_eq!(on_replica.get("/accounts").await.status, 401, "the old cookie ended everywhere");
    let cookie = session_cookie(&changed).expect("the replacing session");
    admin.cookie = Some(cookie.clone());
    on_replica.cookie = Some(cookie);
    assert_eq!(on_replica.get("/accounts").await.status, 200, "the new session is admitted on the replica at once");
    assert_eq!(admin.get("/accounts").await.status, 200);
}

#[tokio::test]
async fn the_event_stream_of_a_disabled_admin_ends() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let response = g
        .client()
        .get(format!("{}/events", admin.base))
        .header("cookie", format!("sb_admin_session={}", admin.cookie.clone().unwrap_or_default()))
        .send()
        .await
        .expect("events");
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let first = tokio::time::timeout(Duration::from_secs(10), body.next()).await.expect("hello in time");
    assert!(first.is_some_and(|chunk| chunk.is_ok_and(|c| String::from_utf8_lossy(&c).contains("event: hello"))));
    let pool = g.pool().await;
    sqlx::query("UPDATE admin_users SET enabled = false WHERE username = 'admin'")
        .execute(&pool)
        .await
        .expect("disable");
    // The stream ends: the body finishes (no more chunks) within the deadline.
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(chunk) = body.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream of a disabled admin ends");
}

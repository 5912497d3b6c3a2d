//! The SSE stream: hello, account facts, config revisions and ops events.

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::json;
use upstream_sim::AccountSpec;

use super::{Admin, gateway};

#[tokio::test]
async fn the_stream_sends_hello_accounts_revisions_and_ops_events() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[]).await;
    let admin = Admin::login(&g).await;
    let anonymous = g.client().get(format!("{}/events", admin.base)).send().await.expect("events");
    assert_eq!(anonymous.status(), 401);
    let response = g
        .client()
        .get(format!("{}/events", admin.base))
        .header("cookie", format!("sb_admin_session={}", admin.cookie.clone().unwrap_or_default()))
        .send()
        .await
        .expect("events");
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap_or_default().starts_with("text/event-stream"));
    assert_eq!(response.headers().get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"));
    let mut body = response.bytes_stream();
    let mut text = String::new();
    let mut changed = false;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while tokio::time::Instant::now() < deadline {
        let Ok(Some(Ok(chunk))) = tokio::time::timeout(Duration::from_secs(2), body.next()).await else { continue };
        text.push_str(&String::from_utf8_lossy(&chunk));
        if text.contains("event: account\n") && !changed {
            changed = true;
            let group = admin.post("/groups", json!({"name": "live"})).await;
            assert_eq!(group.status, 201);
            sqlx::query(
                "INSERT INTO ops_events (occurred_at, level, kind, message) VALUES (now(), 'warn', 'test.live', 'hi')",
            )
            .execute(&g.pool().await)
            .await
            .expect("event");
        }
        if text.contains("event: config_revision") && text.contains("event: ops_event") {
            break;
        }
    }
    assert!(text.starts_with("event: hello"), "{text}");
    assert!(text.contains("\"state\":\"normal\""), "{text}");
    assert!(text.contains("event: config_revision"), "{text}");
    assert!(text.contains("event: ops_event") && text.contains("test.live"), "{text}");
}

#[tokio::test]
async fn the_stream_sends_each_new_request_and_its_completion() {
    let g = gateway(vec![AccountSpec::openai("acct-live-req")], &[]).await;
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
    let mut text = String::new();
    let mut sent = false;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while tokio::time::Instant::now() < deadline {
        let Ok(Some(Ok(chunk))) = tokio::time::timeout(Duration::from_secs(2), body.next()).await else { continue };
        text.push_str(&String::from_utf8_lossy(&chunk));
        if text.contains("event: account\n") && !sent {
            sent = true;
            let answer = g.responses(json!({"model": "gpt-5.4", "input": "live please", "stream": true})).await;
            assert_eq!(answer.status(), 200);
            let _ = answer.text().await;
        }
        if text.contains("event: request\n") && text.contains("\"status\":\"completed\"") {
            break;
        }
    }
    let requests: Vec<&str> = text.split("\n\n").filter(|e| e.starts_with("event: request\n")).collect();
    assert!(!requests.is_empty(), "no request event: {text}");
    assert!(requests.iter().any(|e| e.contains("\"status\":\"completed\"")), "{text}");
    assert!(requests.iter().all(|e| e.contains("\"requestedModel\":\"gpt-5.4\"")), "{text}");
}

#[tokio::test]
async fn the_stream_sends_backup_changes_and_removals() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let pool = g.pool().await;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO backup_records (trigger, state, error_code, error_message) \
         VALUES ('manual', 'failed', 'test', 'before the stream') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .expect("record");
    let response = g
        .client()
        .get(format!("{}/events", admin.base))
        .header("cookie", format!("sb_admin_session={}", admin.cookie.clone().unwrap_or_default()))
        .send()
        .await
        .expect("events");
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let mut text = String::new();
    let (mut queued, mut deleted) = (None::<i64>, false);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while tokio::time::Instant::now() < deadline {
        let Ok(Some(Ok(chunk))) = tokio::time::timeout(Duration::from_secs(2), body.next()).await else { continue };
        text.push_str(&String::from_utf8_lossy(&chunk));
        // after the first poll (it only notes what is there): a new record, then a deletion
        if queued.is_none() && text.matches("event: account").count() == 0 && text.contains("event: hello") {
            tokio::time::sleep(Duration::from_millis(700)).await;
            let new: i64 = sqlx::query_scalar(
                "INSERT INTO backup_records (trigger, state, error_code, error_message) \
                 VALUES ('scheduled', 'failed', 'test', 'during the stream') RETURNING id",
            )
            .fetch_one(&pool)
            .await
            .expect("record");
            queued = Some(new);
        }
        if let Some(new) = queued
            && !deleted
            && text.contains(&format!("\"id\":{new},"))
        {
            let done =
                sqlx::query("DELETE FROM backup_records WHERE id = $1").bind(id).execute(&pool).await.expect("delete");
            assert_eq!(done.rows_affected(), 1);
            deleted = true;
        }
        if text.contains("event: backup_removed") {
            break;
        }
    }
    let new = queued.expect("a record was added");
    assert!(text.contains("event: backup\n") && text.contains("during the stream"), "{text}");
    assert!(!text.contains("before the stream"), "the first poll sends nothing: {text}");
    assert!(text.contains(&format!("event: backup_removed\ndata: {{\"id\":{id}}}")), "{new}: {text}");
}

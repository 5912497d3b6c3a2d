//! Bookkeeping: one `model_requests` row per client request with usage, cost, send state and
//! commit time, written through the observation queue.

use serde_json::json;
use sqlx::Row;
use upstream_sim::AccountSpec;

use crate::gateway::{Gateway, terminal_rows};

#[tokio::test]
async fn one_request_makes_one_row_with_tokens_cost_send_state_and_commit_time() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let response = gateway
        .responses(json!({
            "model": "gpt-5.4",
            "input": "sim: input_tokens=1200 cached_tokens=1000 output_tokens=300 reasoning_tokens=100",
            "stream": true
        }))
        .await;
    assert_eq!(response.status(), 200);
    let request_id = response.headers()["x-request-id"].to_str().expect("id").to_owned();
    response.bytes().await.expect("body");
    let pool = gateway.pool().await;
    let rows = terminal_rows(&pool, 1).await;
    assert_eq!(rows.len(), 1, "exactly one row");
    let row = &rows[0];
    assert_eq!(row.get::<uuid::Uuid, _>("id").to_string(), request_id);
    assert_eq!(row.get::<String, _>("status"), "completed");
    assert_eq!(row.get::<String, _>("send_state"), "sent");
    assert_eq!(row.get::<Option<i64>, _>("input_tokens"), Some(1200));
    assert_eq!(row.get::<Option<i64>, _>("cached_input_tokens"), Some(1000));
    assert_eq!(row.get::<Option<i64>, _>("output_tokens"), Some(300));
    assert_eq!(row.get::<Option<i64>, _>("reasoning_tokens"), Some(100));
    // gpt-5.4 list price: 200 × 1.75 + 1000 × 0.175 + 300 × 14 per million = 0.004725 USD.
    assert_eq!(row.get::<Option<i64>, _>("cost_nano_usd"), Some(4_725_000));
    let started: time::OffsetDateTime = row.get("started_at");
    let committed: time::OffsetDateTime = row.get::<Option<_>, _>("downstream_committed_at").expect("committed");
    let finished: time::OffsetDateTime = row.get::<Option<_>, _>("finished_at").expect("finished");
    assert!(started <= committed && committed <= finished);
    let response_id: Vec<u8> = row.get::<Option<Vec<u8>>, _>("client_response_id").expect("response id");
    assert!(response_id.starts_with(b"resp_"));
    assert_eq!(row.get::<String, _>("routing_scope"), "all");
    assert!(row.get::<Option<i32>, _>("first_event_ms").is_some());
}

#[tokio::test]
async fn a_client_that_hangs_up_right_after_completed_is_recorded_as_a_success() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let mut response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    let mut seen = String::new();
    while let Some(chunk) = response.chunk().await.expect("chunk") {
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if seen.contains("event: response.completed") {
            break;
        }
    }
    drop(response); // hang up like Codex does
    let rows = terminal_rows(&gateway.pool().await, 1).await;
    assert_eq!(rows[0].get::<String, _>("status"), "completed");
    assert_eq!(rows[0].get::<Option<String>, _>("error_code"), None);
}

#[tokio::test]
async fn a_client_that_hangs_up_mid_stream_is_recorded_as_cancelled() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let mut response =
        gateway.responses(json!({"model": "gpt-5.4", "input": "sim: events=50 delay_ms=40", "stream": true})).await;
    let first = response.chunk().await.expect("chunk").expect("a first chunk");
    assert!(String::from_utf8_lossy(&first).contains("response.created"));
    drop(response);
    let rows = terminal_rows(&gateway.pool().await, 1).await;
    assert_eq!(rows[0].get::<String, _>("status"), "cancelled");
    assert_eq!(rows[0].get::<String, _>("send_state"), "sent");
    // What the client had received is kept: the status line, the commit and the response id.
    assert_eq!(rows[0].get::<Option<i16>, _>("http_status"), Some(200));
    assert!(rows[0].get::<Option<time::OffsetDateTime>, _>("downstream_committed_at").is_some());
    let response_id = rows[0].get::<Option<Vec<u8>>, _>("client_response_id").expect("the response id is kept");
    assert!(response_id.starts_with(b"resp_"));
}

#[tokio::test]
async fn a_committed_stream_is_recorded_at_the_commit_while_it_still_runs() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let mut response =
        gateway.responses(json!({"model": "gpt-5.4", "input": "sim: events=200 delay_ms=100", "stream": true})).await;
    let request_id: uuid::Uuid = response.headers()["x-request-id"].to_str().expect("id").parse().expect("uuid");
    let first = response.chunk().await.expect("chunk").expect("a first chunk");
    assert!(String::from_utf8_lossy(&first).contains("response.created"));
    let pool = gateway.pool().await;
    // A crash from here on must still find what the client received in the row.
    let row = test_support::wait_until("the commit observation", std::time::Duration::from_secs(10), || async {
        sqlx::query(
            "SELECT * FROM model_requests WHERE id = $1 AND status = 'running' AND downstream_committed_at IS NOT NULL",
        )
        .bind(request_id)
        .fetch_optional(&pool)
        .await
        .ok()
        .flatten()
    })
    .await
    .expect("the running row shows the commit");
    assert_eq!(row.get::<String, _>("send_state"), "sent");
    assert_eq!(row.get::<Option<i16>, _>("http_status"), Some(200));
    assert!(row.get::<Option<i64>, _>("account_id").is_some());
    let response_id = row.get::<Option<Vec<u8>>, _>("client_response_id").expect("the response id");
    assert!(response_id.starts_with(b"resp_"));
    drop(response);
}

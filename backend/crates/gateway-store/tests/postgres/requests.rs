//! PostgreSQL-only request checks (the port behaviour is in `storage_contract::requests`).

use gateway_core::domain::{
    RequestId, RequestStart, RequestStatus, RequestUpdate, RoutingSnapshot, SendState, Transport,
};
use gateway_core::ports::{RequestLog, StorageErrorKind};

use crate::postgres::test_store::{TestStore, now};
use crate::storage_contract::fixtures::{attempt, attempt_json};

fn start() -> RequestStart {
    RequestStart {
        id: RequestId::new(),
        client_key_id: None,
        requested_model: "gpt-5".to_owned(),
        operation: "responses.create".to_owned(),
        transport: Transport::Http,
        stream: true,
        routing: RoutingSnapshot::All,
        started_at: now(),
        deadline_at: now() + time::Duration::minutes(5),
        runner: None,
    }
}

#[tokio::test]
async fn the_monotone_trigger_holds_for_any_writer() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let s = start();
    t.store.record_starts(std::slice::from_ref(&s)).await?;
    let mut terminal = RequestUpdate::new(s.id, RequestStatus::Failed, SendState::Sent);
    terminal.finished_at = Some(now());
    t.store.record_updates(&[terminal]).await?;

    // The trigger corrects any writer, not only the adapter: the row stays failed and sent.
    sqlx::query("UPDATE model_requests SET send_state = 'not_sent', status = 'running', finished_at = NULL")
        .execute(&t.raw)
        .await?;
    let row = t.store.get_request(s.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Failed, SendState::Sent));
    assert!(row.finished_at.is_some());
    t.finish().await
}

/// The attempts column keeps the JSON shape every earlier row has, and an outcome the domain does
/// not know reads as corrupt rather than as something else.
#[tokio::test]
async fn the_attempts_column_keeps_its_json_shape() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let s = start();
    t.store.record_starts(std::slice::from_ref(&s)).await?;
    let mut progress = RequestUpdate::new(s.id, RequestStatus::Running, SendState::Sent);
    progress.attempts = Some(vec![attempt(1), attempt(2)]);
    t.store.record_updates(&[progress]).await?;
    let stored: serde_json::Value =
        sqlx::query_scalar("SELECT attempts FROM model_requests WHERE id = $1").bind(s.id.0).fetch_one(&t.raw).await?;
    assert_eq!(stored, serde_json::json!([attempt_json(1), attempt_json(2)]));

    sqlx::query("UPDATE model_requests SET attempts = jsonb_set(attempts, '{0,outcome}', '\"upstream_exploded\"')")
        .execute(&t.raw)
        .await?;
    let error = t.store.get_request(s.id).await.expect_err("an unknown outcome");
    assert_eq!(error.kind(), StorageErrorKind::Corrupt, "{error}");
    assert!(error.to_string().contains("upstream_exploded"), "{error}");
    t.finish().await
}

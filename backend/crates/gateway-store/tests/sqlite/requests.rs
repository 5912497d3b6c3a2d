//! SQLite-only request checks (the port behaviour is in `storage_contract::requests`).

use gateway_core::domain::{
    RequestId, RequestStart, RequestStatus, RequestUpdate, RoutingSnapshot, SendState, Transport,
};
use gateway_core::ports::{RequestLog, StorageErrorKind};

use crate::sqlite::test_store::SqliteTestStore;
use crate::storage_contract::fixtures::{attempt, attempt_json, now};

/// The attempts column keeps the JSON shape every earlier row has (as JSON text), and an
/// outcome the domain does not know reads as corrupt rather than as something else.
#[tokio::test]
async fn the_attempts_column_keeps_its_json_shape() -> anyhow::Result<()> {
    let t = SqliteTestStore::new().await?;
    let s = RequestStart {
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
    };
    t.store.record_starts(std::slice::from_ref(&s)).await?;
    let mut progress = RequestUpdate::new(s.id, RequestStatus::Running, SendState::Sent);
    progress.attempts = Some(vec![attempt(1), attempt(2)]);
    t.store.record_updates(&[progress]).await?;
    let raw = t.raw().await?;
    let stored: String = sqlx::query_scalar("SELECT attempts FROM model_requests").fetch_one(&raw).await?;
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stored)?,
        serde_json::json!([attempt_json(1), attempt_json(2)])
    );

    sqlx::query("UPDATE model_requests SET attempts = json_set(attempts, '$[0].outcome', 'upstream_exploded')")
        .execute(&raw)
        .await?;
    raw.close().await;
    let error = t.store.get_request(s.id).await.expect_err("an unknown outcome");
    assert_eq!(error.kind(), StorageErrorKind::Corrupt, "{error}");
    assert!(error.to_string().contains("upstream_exploded"), "{error}");
    t.finish().await
}

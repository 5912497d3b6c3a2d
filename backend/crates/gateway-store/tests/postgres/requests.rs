//! PostgreSQL-only request checks (the port behaviour is in `storage_contract::requests`).

use gateway_core::domain::{
    RequestId, RequestStart, RequestStatus, RequestUpdate, RoutingSnapshot, SendState, Transport,
};
use gateway_core::ports::RequestLog;

use crate::postgres::test_store::{TestStore, now};

#[tokio::test]
async fn the_monotone_trigger_holds_for_any_writer() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
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

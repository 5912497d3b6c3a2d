use gateway_core::domain::{AccountId, OpsEvent, OpsLevel, ProviderKind, RequestId};
use gateway_core::ports::OpsEventLog;
use time::Duration;

use crate::postgres::test_store::{TestStore, now};

fn event(occurred_at: time::OffsetDateTime) -> OpsEvent {
    OpsEvent {
        occurred_at,
        level: OpsLevel::Warn,
        kind: "credential.refresh_failed".to_owned(),
        provider: Some(ProviderKind::Openai),
        account_id: None,
        request_id: None,
        message: "refresh failed with 503".to_owned(),
        details: serde_json::json!({ "attempt": 2 }),
    }
}

#[tokio::test]
async fn dangling_references_are_kept_in_details_instead_of_failing_the_batch() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let account = t.import("acct-1", "tok").await?.account_id;
    let mut linked = event(now());
    linked.account_id = Some(account);
    let mut dangling = event(now());
    dangling.account_id = Some(AccountId(987_654));
    dangling.request_id = Some(RequestId::new());
    assert_eq!(t.store.record_ops_events(&[linked, dangling]).await?, 2);
    let rows: Vec<(Option<i64>, serde_json::Value)> =
        sqlx::query_as("SELECT account_id, details FROM ops_events ORDER BY id").fetch_all(&t.raw).await?;
    assert_eq!(rows[0].0, Some(account.0));
    assert_eq!(rows[1].0, None);
    assert_eq!(rows[1].1["unlinked_account_id"], 987_654);
    assert!(rows[1].1["unlinked_request_id"].is_string());
    assert_eq!(rows[1].1["attempt"], 2);
    t.finish().await
}

#[tokio::test]
async fn retention_deletes_old_events_in_bounded_batches() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let old: Vec<OpsEvent> = (0..5).map(|_| event(now() - Duration::days(30))).collect();
    t.store.record_ops_events(&old).await?;
    t.store.record_ops_events(&[event(now())]).await?;
    let cutoff = now() - Duration::days(14);
    let batches = [
        t.store.delete_ops_events_before(cutoff, 3).await?,
        t.store.delete_ops_events_before(cutoff, 3).await?,
        t.store.delete_ops_events_before(cutoff, 3).await?,
    ];
    assert_eq!(batches, [3, 2, 0]);
    t.finish().await
}

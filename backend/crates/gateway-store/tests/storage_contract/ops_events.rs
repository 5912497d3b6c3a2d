//! [`OpsEventLog`]: batch writes that never fail on a dangling reference, bounded retention.

use gateway_admin::ports::{OpsEventFilter, OpsEventQueries};
use gateway_core::domain::{AccountId, OpsEvent, OpsLevel, ProviderKind, RequestId};
use gateway_core::ports::OpsEventLog;
use time::Duration;

use crate::storage_contract::fixtures::{Harness, import, now};

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

pub async fn dangling_references_are_kept_in_details_instead_of_failing_the_batch(
    h: impl Harness,
) -> anyhow::Result<()> {
    let store = h.store();
    let account = import(&store, "acct-1", "tok").await?.account_id;
    let mut linked = event(now());
    linked.account_id = Some(account);
    let mut dangling = event(now());
    dangling.account_id = Some(AccountId(987_654));
    let dangling_request = RequestId::new();
    dangling.request_id = Some(dangling_request);
    assert_eq!(store.record_ops_events(&[linked, dangling]).await?, 2);
    let rows = store.ops_events_after(0, 10).await?;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].event.account_id, Some(account));
    assert_eq!(
        rows[0].event.details,
        serde_json::json!({ "attempt": 2 }),
        "linked rows keep their details as they are"
    );
    assert_eq!(rows[1].event.account_id, None);
    assert_eq!(rows[1].event.request_id, None);
    assert_eq!(rows[1].event.details["unlinked_account_id"], 987_654);
    assert_eq!(rows[1].event.details["unlinked_request_id"], dangling_request.0.to_string());
    assert_eq!(rows[1].event.details["attempt"], 2);
    assert_eq!(rows[1].event.kind, "credential.refresh_failed");
    assert_eq!(store.latest_ops_event_id().await?, rows[1].id);
    let warn_for_account =
        OpsEventFilter { account: Some(account), level: Some(OpsLevel::Warn), ..OpsEventFilter::default() };
    assert_eq!(store.list_ops_events(&warn_for_account, None, 10).await?.len(), 1);
    let errors_only = OpsEventFilter { level: Some(OpsLevel::Error), ..OpsEventFilter::default() };
    assert!(store.list_ops_events(&errors_only, None, 10).await?.is_empty());
    let by_kind = OpsEventFilter { kind: Some("credential.".to_owned()), ..OpsEventFilter::default() };
    assert_eq!(store.list_ops_events(&by_kind, None, 10).await?.len(), 2);
    h.finish().await
}

pub async fn ops_retention_deletes_old_events_in_bounded_batches(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let old: Vec<OpsEvent> = (0..5).map(|_| event(now() - Duration::days(30))).collect();
    store.record_ops_events(&old).await?;
    store.record_ops_events(&[event(now())]).await?;
    let cutoff = now() - Duration::days(14);
    let batches = [
        store.delete_ops_events_before(cutoff, 3).await?,
        store.delete_ops_events_before(cutoff, 3).await?,
        store.delete_ops_events_before(cutoff, 3).await?,
    ];
    assert_eq!(batches, [3, 2, 0]);
    assert_eq!(store.ops_events_after(0, 10).await?.len(), 1, "the recent event stays");
    h.finish().await
}

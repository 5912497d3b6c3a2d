//! [`QuotaStore`]: fenced by the quota revision and by observation time.

use gateway_core::domain::{QuotaFacts, QuotaRevision, QuotaState};
use gateway_core::ports::{QuotaStore, SnapshotSource, StorageErrorKind};

use crate::storage_contract::fixtures::{Harness, import, now};

pub async fn quota_writes_are_fenced_by_revision_and_observation_time(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let account = import(&store, "acct-1", "tok").await?.account_id;
    let revision = store.current_config_revision().await?;
    let at = now();
    let facts = |state, observed_at| QuotaFacts { state, windows: Vec::new(), observed_at };
    let r1 = store.write_quota(account, QuotaRevision(0), facts(QuotaState::Allowed, Some(at))).await?;
    assert_eq!(r1, QuotaRevision(1));
    let stale = store.write_quota(account, QuotaRevision(0), facts(QuotaState::Exhausted, Some(at))).await;
    assert_eq!(stale.expect_err("lost race").kind(), StorageErrorKind::RevisionMismatch);
    let older =
        store.write_quota(account, r1, facts(QuotaState::Exhausted, Some(at - time::Duration::minutes(1)))).await;
    assert_eq!(older.expect_err("older observation").kind(), StorageErrorKind::RevisionMismatch);
    let windows = vec![crate::storage_contract::fixtures::quota_window(100.0)];
    let exhausted = QuotaFacts { state: QuotaState::Exhausted, windows: windows.clone(), observed_at: Some(at) };
    let r2 = store.write_quota(account, r1, exhausted).await?;
    assert_eq!(r2, QuotaRevision(2));
    let stored = store.load_account(account).await?;
    assert_eq!((stored.quota_revision, stored.quota.state), (r2, QuotaState::Exhausted));
    assert_eq!(stored.quota.windows, windows);
    assert_eq!(stored.quota.observed_at, Some(at));
    assert_eq!(store.current_config_revision().await?, revision, "observations do not bump the revision");
    let missing = store
        .write_quota(gateway_core::domain::AccountId(424_242), QuotaRevision(0), facts(QuotaState::Allowed, None))
        .await;
    assert_eq!(missing.expect_err("no such account").kind(), StorageErrorKind::NotFound);
    h.finish().await
}

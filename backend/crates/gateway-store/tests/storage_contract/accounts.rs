//! Account mutations of the unit of work, read back through [`AccountDirectory`] and
//! [`GroupDirectory`].

use gateway_admin::ports::{AccountDirectory, GroupDirectory, UnitOfWork};
use gateway_core::domain::{
    AccountId, CredentialSlot, GroupId, QuotaFacts, QuotaRevision, QuotaState, RequestId, RequestStart, RequestStatus,
    RequestUpdate, RoutingSnapshot, SchedulingFacts, SendState, Transport, Weight,
};
use gateway_core::ports::{ConstraintKind, QuotaStore, RequestLog, StorageError, StorageErrorKind};

use crate::storage_contract::fixtures::{Harness, account_import, audit, group, import, now};

pub async fn import_upsert_keeps_scheduling_facts_groups_and_quota(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let first = import(&store, "acct-1", "token-one").await?;
    assert!(first.created);

    let mut tx = store.begin().await?;
    let g = tx.create_group(&group("team")).await?;
    let scheduling = SchedulingFacts { enabled: false, concurrency_cap: Some(7), weight: Weight::new(42)? };
    tx.update_account_scheduling(first.account_id, &scheduling).await?;
    tx.replace_account_groups(first.account_id, &[g, g]).await?;
    tx.commit(audit("account.update", "account")).await?;
    let quota = QuotaFacts {
        state: QuotaState::Exhausted,
        windows: vec![crate::storage_contract::fixtures::quota_window(100.0)],
        observed_at: None,
    };
    store.write_quota(first.account_id, QuotaRevision(0), quota.clone()).await?;

    let mut reimport = account_import("acct-1", "token-two");
    reimport.profile.email = Some("new@example.com".to_owned());
    reimport.profile.plan_type = None;
    let mut tx = store.begin().await?;
    let second = tx.import_account(reimport).await?;
    tx.commit(audit("account.import", "account")).await?;

    assert!(!second.created);
    assert_eq!(second.account_id, first.account_id);
    assert_eq!(second.credential_revision, first.credential_revision.next());
    let account = store.get_account(first.account_id).await?;
    assert_eq!(account.scheduling, scheduling, "import never overwrites scheduling facts");
    assert_eq!(store.account_groups(first.account_id).await?, vec![g]);
    assert_eq!(account.quota.state, QuotaState::Exhausted);
    assert_eq!(account.quota.windows, quota.windows);
    assert_eq!(account.profile.email.as_deref(), Some("new@example.com"));
    assert_eq!(account.profile.plan_type.as_deref(), Some("plus"), "a profile field the import lacks is kept");
    match &account.credential {
        CredentialSlot::Available(doc) => assert!(doc.expose_json().contains("token-two")),
        other => panic!("credential should open: {other:?}"),
    }
    assert_eq!(store.list_accounts().await?.len(), 1);
    h.finish().await
}

pub async fn foreign_key_check_and_unique_violations_are_typed_errors(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let account = import(&store, "acct-1", "tok").await?.account_id;

    let mut tx = store.begin().await?;
    let err = tx.replace_account_groups(account, &[GroupId(999_999)]).await.expect_err("no such group");
    assert!(matches!(&err, StorageError::Constraint { kind: ConstraintKind::ForeignKey, .. }), "{err:?}");
    drop(tx);

    let mut tx = store.begin().await?;
    let zero_cap = SchedulingFacts { enabled: true, concurrency_cap: Some(0), weight: Weight::default() };
    let err = tx.update_account_scheduling(account, &zero_cap).await.expect_err("cap must be >= 1");
    assert!(matches!(err, StorageError::Constraint { kind: ConstraintKind::Check, .. }), "{err:?}");
    drop(tx);

    let mut tx = store.begin().await?;
    let err = tx.create_group(&group("  ")).await.expect_err("blank name");
    assert!(matches!(err, StorageError::Constraint { kind: ConstraintKind::Check, .. }), "{err:?}");
    drop(tx);

    let mut tx = store.begin().await?;
    tx.create_group(&group("Team")).await?;
    let err = tx.create_group(&group("team")).await.expect_err("names are unique, case-insensitively");
    assert!(
        matches!(&err, StorageError::Conflict { constraint } if constraint == "account_groups_name_key"),
        "{err:?}"
    );
    drop(tx);

    let mut tx = store.begin().await?;
    let err = tx
        .update_account_scheduling(AccountId(424_242), &SchedulingFacts::default())
        .await
        .expect_err("missing account");
    assert_eq!(err.kind(), StorageErrorKind::NotFound);
    let err = tx.replace_group_members(GroupId(424_242), &[account]).await.expect_err("missing group");
    assert_eq!(err.kind(), StorageErrorKind::NotFound);
    drop(tx);
    assert_eq!(store.get_account(AccountId(424_242)).await.expect_err("missing").kind(), StorageErrorKind::NotFound);
    h.finish().await
}

pub async fn deleting_an_account_cascades_membership_and_nulls_request_references(
    h: impl Harness,
) -> anyhow::Result<()> {
    let store = h.store();
    let account = import(&store, "acct-1", "tok").await?.account_id;
    let start = RequestStart {
        id: RequestId::new(),
        client_key_id: None,
        requested_model: "gpt-5".to_owned(),
        operation: "responses.create".to_owned(),
        transport: Transport::Websocket,
        stream: true,
        routing: RoutingSnapshot::All,
        started_at: now(),
        deadline_at: now(),
        runner: None,
    };
    store.record_starts(std::slice::from_ref(&start)).await?;
    let mut update = RequestUpdate::new(start.id, RequestStatus::Completed, SendState::Sent);
    update.account_id = Some(account);
    store.record_updates(&[update]).await?;
    assert_eq!(store.get_request(start.id).await?.account_id, Some(account));

    let mut tx = store.begin().await?;
    let g = tx.create_group(&group("g")).await?;
    tx.replace_group_members(g, &[account]).await?;
    tx.commit(audit("group.update", "group")).await?;
    assert_eq!(store.get_group(g).await?.account_ids, [account]);
    let mut tx = store.begin().await?;
    tx.delete_account(account).await?;
    tx.commit(audit("account.delete", "account")).await?;
    assert!(store.get_group(g).await?.account_ids.is_empty(), "membership cascades");
    assert_eq!(store.get_request(start.id).await?.account_id, None, "the request row stays, unlinked");
    assert!(store.list_accounts().await?.is_empty());
    h.finish().await
}

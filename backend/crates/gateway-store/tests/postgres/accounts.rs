use gateway_admin::ports::{AccountDirectory, GroupChanges, UnitOfWork};
use gateway_core::domain::{
    AccountId, GroupId, QuotaFacts, QuotaState, QuotaWindow, RequestId, RequestStart, RequestStatus, RequestUpdate,
    RoutingSnapshot, SchedulingFacts, SendState, Transport, Weight,
};
use gateway_core::ports::{ConstraintKind, QuotaStore, RequestLog, StorageError, StorageErrorKind};

use crate::postgres::test_store::{TestStore, account_import, audit, now};

fn group(name: &str) -> GroupChanges {
    GroupChanges { name: name.to_owned(), description: String::new(), enabled: true }
}

#[tokio::test]
async fn import_upsert_keeps_scheduling_facts_groups_and_quota() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let first = t.import("acct-1", "token-one").await?;
    assert!(first.created);

    let mut tx = t.store.begin().await?;
    let g = tx.create_group(&group("team")).await?;
    let scheduling = SchedulingFacts { enabled: false, concurrency_cap: Some(7), weight: Weight::new(42)? };
    tx.update_account_scheduling(first.account_id, &scheduling).await?;
    tx.replace_account_groups(first.account_id, &[g]).await?;
    tx.commit(audit("account.update", "account")).await?;
    let window = QuotaWindow {
        name: "primary".to_owned(),
        used_percent: 100.0,
        window_minutes: Some(300),
        reset_at: Some(1_800_000_000),
        plan_type: Some("plus".to_owned()),
    };
    let quota = QuotaFacts { state: QuotaState::Exhausted, windows: vec![window], observed_at: None };
    t.store.write_quota(first.account_id, gateway_core::domain::QuotaRevision(0), quota.clone()).await?;

    let mut reimport = account_import("acct-1", "token-two");
    reimport.profile.email = Some("new@example.com".to_owned());
    let mut tx = t.store.begin().await?;
    let second = tx.import_account(reimport).await?;
    tx.commit(audit("account.import", "account")).await?;

    assert!(!second.created);
    assert_eq!(second.account_id, first.account_id);
    assert_eq!(second.credential_revision, first.credential_revision.next());
    let account = t.store.get_account(first.account_id).await?;
    assert_eq!(account.scheduling, scheduling, "import never overwrites scheduling facts");
    assert_eq!(t.store.account_groups(first.account_id).await?, vec![g]);
    assert_eq!(account.quota.state, QuotaState::Exhausted);
    assert_eq!(account.quota.windows, quota.windows, "typed windows round-trip through the JSONB column");
    assert_eq!(account.profile.email.as_deref(), Some("new@example.com"));
    match &account.credential {
        gateway_core::domain::CredentialSlot::Available(doc) => assert!(doc.expose_json().contains("token-two")),
        other => panic!("credential should open: {other:?}"),
    }
    t.finish().await
}

#[tokio::test]
async fn foreign_key_and_check_violations_are_typed_errors() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let account = t.import("acct-1", "tok").await?.account_id;

    let mut tx = t.store.begin().await?;
    let err = tx.replace_account_groups(account, &[GroupId(999_999)]).await.expect_err("no such group");
    assert!(
        matches!(&err, StorageError::Constraint { kind: ConstraintKind::ForeignKey, constraint }
            if constraint == "account_group_accounts_group_id_fkey"),
        "{err:?}"
    );
    assert_eq!(err.kind(), StorageErrorKind::Constraint);
    drop(tx);

    let mut tx = t.store.begin().await?;
    let zero_cap = SchedulingFacts { enabled: true, concurrency_cap: Some(0), weight: Weight::default() };
    let err = tx.update_account_scheduling(account, &zero_cap).await.expect_err("cap must be >= 1");
    assert!(matches!(err, StorageError::Constraint { kind: ConstraintKind::Check, .. }), "{err:?}");
    drop(tx);

    let mut tx = t.store.begin().await?;
    let err = tx.create_group(&group("  ")).await.expect_err("blank name");
    assert!(matches!(err, StorageError::Constraint { kind: ConstraintKind::Check, .. }), "{err:?}");
    drop(tx);

    let mut tx = t.store.begin().await?;
    tx.create_group(&group("Team")).await?;
    let err = tx.create_group(&group("team")).await.expect_err("names are unique, case-insensitively");
    assert!(
        matches!(&err, StorageError::Conflict { constraint } if constraint == "account_groups_name_key"),
        "{err:?}"
    );
    drop(tx);

    let mut tx = t.store.begin().await?;
    let err = tx
        .update_account_scheduling(AccountId(424_242), &SchedulingFacts::default())
        .await
        .expect_err("missing account");
    assert_eq!(err.kind(), StorageErrorKind::NotFound);
    drop(tx);

    let raw = sqlx::query("UPDATE provider_accounts SET credential_state = 'sleeping'").execute(&t.raw).await;
    assert!(raw.is_err(), "closed sets are CHECK constraints");
    t.finish().await
}

#[tokio::test]
async fn deleting_an_account_cascades_membership_and_nulls_request_references() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let account = t.import("acct-1", "tok").await?.account_id;
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
    t.store.record_starts(std::slice::from_ref(&start)).await?;
    let mut update = RequestUpdate::new(start.id, RequestStatus::Completed, SendState::Sent);
    update.account_id = Some(account);
    t.store.record_updates(&[update]).await?;
    assert_eq!(t.store.get_request(start.id).await?.account_id, Some(account));

    let mut tx = t.store.begin().await?;
    let g = tx.create_group(&group("g")).await?;
    tx.replace_group_members(g, &[account]).await?;
    tx.delete_account(account).await?;
    tx.commit(audit("account.delete", "account")).await?;
    let members: i64 = sqlx::query_scalar("SELECT count(*) FROM account_group_accounts").fetch_one(&t.raw).await?;
    assert_eq!(members, 0);
    assert_eq!(t.store.get_request(start.id).await?.account_id, None, "the request row stays, unlinked");
    t.finish().await
}

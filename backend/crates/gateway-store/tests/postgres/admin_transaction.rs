use gateway_admin::audit::{AuditActor, AuditEntry};
use gateway_admin::ports::{
    AuditTrail, ClientKeyChanges, ClientKeyDirectory, GroupChanges, GroupDirectory, NewClientKey,
    RuntimeSettingsReader, UnitOfWork,
};
use gateway_core::domain::{ClientKeyLimits, ClientKeySecret, ConfigRevision, KeyScope, RotationStrategy};
use gateway_core::ports::{ConstraintKind, SnapshotSource, StorageError, StorageErrorKind};

use crate::postgres::test_store::{TestStore, audit};

fn group(name: &str) -> GroupChanges {
    GroupChanges { name: name.to_owned(), description: "d".to_owned(), enabled: true }
}

fn new_key(name: &str) -> NewClientKey {
    let secret = ClientKeySecret::new(format!("sk-sb-{name}-0123456789abcdef"));
    NewClientKey {
        key_hash: secret.hash(),
        key_prefix: secret.display_prefix(),
        changes: ClientKeyChanges {
            name: name.to_owned(),
            enabled: true,
            expires_at: None,
            limits: ClientKeyLimits { max_concurrency: Some(2), ..ClientKeyLimits::default() },
            allowed_models: None,
        },
    }
}

#[tokio::test]
async fn commit_bumps_the_revision_once_and_writes_the_audit_row() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let before = t.store.current_config_revision().await?;
    let mut tx = t.store.begin().await?;
    tx.create_group(&group("a")).await?;
    tx.create_group(&group("b")).await?;
    let receipt = tx.commit(audit("group.create", "group")).await?;
    assert_eq!(receipt.config_revision, before.next());
    assert_eq!(t.store.current_config_revision().await?, before.next());
    let events = t.store.list_audit_events(None, 10).await?;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].id, receipt.audit_event_id);
    assert_eq!(events[0].config_revision, receipt.config_revision);
    t.finish().await
}

#[tokio::test]
async fn a_failing_audit_insert_rolls_back_the_mutation_and_the_revision() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let before = t.store.current_config_revision().await?;
    let mut tx = t.store.begin().await?;
    tx.create_group(&group("doomed")).await?;
    let mut settings = t.store.read_runtime_settings().await?.1;
    settings.rotation_strategy = RotationStrategy::Sticky;
    tx.update_runtime_settings(&settings).await?;
    let bad = AuditEntry::new(
        AuditActor { user_id: None, name: "test".to_owned() },
        "Not A Valid Action!",
        "group",
        None,
        serde_json::json!({}),
    );
    let err = tx.commit(bad).await.expect_err("the audit CHECK refuses the row");
    assert!(matches!(err, StorageError::Constraint { kind: ConstraintKind::Check, .. }), "{err:?}");
    assert!(t.store.list_groups().await?.is_empty(), "mutation rolled back");
    assert_eq!(t.store.current_config_revision().await?, before, "revision bump rolled back");
    assert_eq!(t.store.read_runtime_settings().await?.1.rotation_strategy, RotationStrategy::Smart);
    assert!(t.store.list_audit_events(None, 10).await?.is_empty());
    t.finish().await
}

#[tokio::test]
async fn dropping_a_transaction_rolls_back() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let mut tx = t.store.begin().await?;
    tx.create_group(&group("never")).await?;
    drop(tx);
    let mut tx = t.store.begin().await?;
    tx.create_group(&group("explicit")).await?;
    tx.rollback().await?;
    assert!(t.store.list_groups().await?.is_empty());
    assert_eq!(t.store.current_config_revision().await?, ConfigRevision(1));
    t.finish().await
}

#[tokio::test]
async fn key_scope_changes_are_reported_and_bound_groups_cannot_be_deleted() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let mut tx = t.store.begin().await?;
    let key = tx.create_client_key(&new_key("ci")).await?;
    let g = tx.create_group(&group("g")).await?;
    let before = tx.replace_client_key_groups(key, &[g]).await?;
    assert_eq!(before, KeyScope::AllAccounts);
    tx.commit(audit("client_key.update", "client_key")).await?;
    assert_eq!(t.store.get_client_key(key).await?.scope, KeyScope::Groups(vec![g]));

    let mut tx = t.store.begin().await?;
    let err = tx.delete_group(g).await.expect_err("a key is bound to it");
    assert!(matches!(err, StorageError::Constraint { kind: ConstraintKind::ForeignKey, .. }), "{err:?}");
    drop(tx);

    let mut tx = t.store.begin().await?;
    assert_eq!(tx.replace_client_key_groups(key, &[]).await?, KeyScope::Groups(vec![g]));
    tx.delete_group(g).await?;
    tx.commit(audit("client_key.update", "client_key")).await?;
    assert_eq!(t.store.get_client_key(key).await?.scope, KeyScope::AllAccounts);

    let mut tx = t.store.begin().await?;
    let err = tx.create_client_key(&new_key("ci")).await.expect_err("same key hash");
    assert_eq!(err.kind(), StorageErrorKind::Conflict);
    drop(tx);
    t.finish().await
}

#[tokio::test]
async fn the_audit_chain_verifies_and_detects_edits() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    for name in ["a", "b", "c"] {
        let mut tx = t.store.begin().await?;
        tx.create_group(&group(name)).await?;
        let entry = AuditEntry::new(
            AuditActor { user_id: None, name: "admin".to_owned() },
            "group.create",
            "group",
            Some(name.to_owned()),
            serde_json::json!({ "name": name, "z": 1, "a": [true, null], "refresh_token": "leaked" }),
        );
        tx.commit(entry).await?;
    }
    assert_eq!(t.store.verify_audit_chain().await?, None);
    let events = t.store.list_audit_events(None, 10).await?;
    assert_eq!(events.len(), 3);
    assert_eq!(events[0].details["refresh_token"], "[REDACTED]", "details are redacted before storage");
    let stored: String =
        sqlx::query_scalar("SELECT string_agg(details::text, ' ') FROM admin_audit_events").fetch_one(&t.raw).await?;
    assert!(!stored.contains("leaked"));

    let middle = events[1].id;
    sqlx::query("UPDATE admin_audit_events SET details = '{\"name\": \"forged\"}' WHERE id = $1")
        .bind(middle)
        .execute(&t.raw)
        .await?;
    assert_eq!(t.store.verify_audit_chain().await?, Some(middle));
    t.finish().await
}

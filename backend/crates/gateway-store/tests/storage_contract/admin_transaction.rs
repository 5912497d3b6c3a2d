//! [`UnitOfWork`]: mutation, revision bump and audit row in one transaction; the audit chain.

use gateway_admin::audit::{AuditActor, AuditEntry};
use gateway_admin::ports::{AuditTrail, ClientKeyDirectory, GroupDirectory, RuntimeSettingsReader, UnitOfWork};
use gateway_core::domain::{ConfigRevision, KeyScope, RotationStrategy};
use gateway_core::ports::{ConstraintKind, SnapshotSource, StorageError, StorageErrorKind};

use crate::storage_contract::fixtures::{Harness, audit, group, new_key};

pub async fn commit_bumps_the_revision_once_and_writes_the_audit_row(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let before = store.current_config_revision().await?;
    let mut tx = store.begin().await?;
    tx.create_group(&group("a")).await?;
    tx.create_group(&group("b")).await?;
    let receipt = tx.commit(audit("group.create", "group")).await?;
    assert_eq!(receipt.config_revision, before.next());
    assert_eq!(store.current_config_revision().await?, before.next());
    assert_eq!(store.read_runtime_settings().await?.0, before.next());
    let events = store.list_audit_events(None, 10).await?;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].id, receipt.audit_event_id);
    assert_eq!(events[0].config_revision, receipt.config_revision);
    assert_eq!(store.list_groups().await?.len(), 2);
    h.finish().await
}

pub async fn a_failing_audit_insert_rolls_back_the_mutation_and_the_revision(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let before = store.current_config_revision().await?;
    let mut tx = store.begin().await?;
    tx.create_group(&group("doomed")).await?;
    let mut settings = store.read_runtime_settings().await?.1;
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
    assert!(store.list_groups().await?.is_empty(), "mutation rolled back");
    assert_eq!(store.current_config_revision().await?, before, "revision bump rolled back");
    assert_eq!(store.read_runtime_settings().await?.1.rotation_strategy, RotationStrategy::Smart);
    assert!(store.list_audit_events(None, 10).await?.is_empty());
    h.finish().await
}

pub async fn dropping_a_transaction_rolls_back(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let mut tx = store.begin().await?;
    tx.create_group(&group("never")).await?;
    drop(tx);
    let mut tx = store.begin().await?;
    tx.create_group(&group("explicit")).await?;
    tx.rollback().await?;
    assert!(store.list_groups().await?.is_empty());
    assert_eq!(store.current_config_revision().await?, ConfigRevision(1));
    h.finish().await
}

pub async fn key_scope_changes_are_reported_and_bound_groups_cannot_be_deleted(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let mut tx = store.begin().await?;
    let key = tx.create_client_key(&new_key("ci")).await?;
    let g = tx.create_group(&group("g")).await?;
    let before = tx.replace_client_key_groups(key, &[g]).await?;
    assert_eq!(before, KeyScope::AllAccounts);
    tx.commit(audit("client_key.update", "client_key")).await?;
    assert_eq!(store.get_client_key(key).await?.scope, KeyScope::Groups(vec![g]));

    let mut tx = store.begin().await?;
    let err = tx.delete_group(g).await.expect_err("a key is bound to it");
    assert!(matches!(err, StorageError::Constraint { kind: ConstraintKind::ForeignKey, .. }), "{err:?}");
    drop(tx);

    let mut tx = store.begin().await?;
    assert_eq!(tx.replace_client_key_groups(key, &[]).await?, KeyScope::Groups(vec![g]));
    tx.delete_group(g).await?;
    tx.commit(audit("client_key.update", "client_key")).await?;
    assert_eq!(store.get_client_key(key).await?.scope, KeyScope::AllAccounts);

    let mut tx = store.begin().await?;
    let err = tx.create_client_key(&new_key("ci")).await.expect_err("same key hash");
    assert!(
        matches!(&err, StorageError::Conflict { constraint } if constraint == "client_api_keys_key_hash_key"),
        "{err:?}"
    );
    drop(tx);

    let mut tx = store.begin().await?;
    let mut limited = new_key("models");
    limited.changes.allowed_models = Some(vec!["gpt-5".to_owned(), "grok-4".to_owned()]);
    let limited_id = tx.create_client_key(&limited).await?;
    let err = tx.delete_client_key(gateway_core::domain::ClientKeyId(424_242)).await.expect_err("missing key");
    assert_eq!(err.kind(), StorageErrorKind::NotFound);
    tx.commit(audit("client_key.create", "client_key")).await?;
    let stored = store.get_client_key(limited_id).await?;
    assert_eq!(stored.allowed_models, limited.changes.allowed_models);
    assert_eq!(stored.limits.max_concurrency, Some(2));
    assert_eq!(store.list_client_keys().await?.len(), 2);
    h.finish().await
}

pub async fn the_audit_chain_verifies_and_details_are_redacted(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    for name in ["a", "b", "c"] {
        let mut tx = store.begin().await?;
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
    assert_eq!(store.verify_audit_chain().await?, None);
    let events = store.list_audit_events(None, 10).await?;
    assert_eq!(events.len(), 3);
    assert!(events.windows(2).all(|w| w[0].id > w[1].id), "newest first");
    assert_eq!(events[0].details["refresh_token"], "[REDACTED]", "details are redacted before storage");
    assert_eq!(events[0].details["a"], serde_json::json!([true, null]));
    assert_eq!(events[2].prev_hash, None, "the first row starts the chain");
    assert_eq!(events[1].prev_hash, Some(events[2].row_hash));
    assert_eq!(events[0].target_id.as_deref(), Some("c"));
    let older = store.list_audit_events(Some(events[0].id), 10).await?;
    assert_eq!(older.iter().map(|e| e.id).collect::<Vec<_>>(), [events[1].id, events[2].id]);
    h.finish().await
}

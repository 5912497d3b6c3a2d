//! SQLite-only checks: the connection settings, the same columns as PostgreSQL, rules that hold
//! for any writer, no plaintext at rest, tamper detection.

use gateway_admin::audit::{AuditActor, AuditEntry};
use gateway_admin::ports::{AuditTrail, UnitOfWork};
use gateway_core::domain::{
    RequestId, RequestStart, RequestStatus, RequestUpdate, RoutingSnapshot, SendState, Transport,
};
use gateway_core::ports::RequestLog;

use crate::postgres::test_store::TestStore;
use crate::sqlite::test_store::SqliteTestStore;
use crate::storage_contract::fixtures::{audit, group, import, now};

#[tokio::test]
async fn connections_use_wal_foreign_keys_a_busy_timeout_and_one_writer() -> anyhow::Result<()> {
    let t = SqliteTestStore::new().await?;
    let journal: String = sqlx::query_scalar("PRAGMA journal_mode").fetch_one(t.store.writer()).await?;
    assert_eq!(journal, "wal");
    let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys").fetch_one(t.store.writer()).await?;
    assert_eq!(fk, 1);
    let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys").fetch_one(t.store.reader()).await?;
    assert_eq!(fk, 1);
    let busy: i64 = sqlx::query_scalar("PRAGMA busy_timeout").fetch_one(t.store.writer()).await?;
    assert_eq!(busy, 5000);
    assert_eq!(t.store.writer().options().get_max_connections(), 1, "one writer");
    let write = sqlx::query("DELETE FROM ops_events").execute(t.store.reader()).await;
    assert!(write.is_err(), "readers are read-only");
    t.finish().await
}

/// The same tables with the same columns as the PostgreSQL schema (0001 + 0004).
#[tokio::test]
async fn the_tables_hold_the_same_columns_as_postgresql() -> anyhow::Result<()> {
    let pg = TestStore::new().await?;
    let t = SqliteTestStore::new().await?;
    let pg_columns: Vec<(String, String)> = sqlx::query_as(
        "SELECT table_name::text, column_name::text FROM information_schema.columns \
         WHERE table_schema = current_schema() AND table_name NOT LIKE '\\_%' ORDER BY 1, 2",
    )
    .fetch_all(&pg.raw)
    .await?;
    let sqlite_columns: Vec<(String, String)> = sqlx::query_as(
        "SELECT m.name, c.name FROM sqlite_master m, pragma_table_info(m.name) c \
         WHERE m.type = 'table' AND m.name NOT LIKE '\\_%' ESCAPE '\\' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
         ORDER BY 1, 2",
    )
    .fetch_all(t.store.reader())
    .await?;
    assert!(!pg_columns.is_empty());
    assert_eq!(sqlite_columns, pg_columns);
    pg.finish().await?;
    t.finish().await
}

#[tokio::test]
async fn the_monotone_rules_hold_for_any_writer() -> anyhow::Result<()> {
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
    let mut terminal = RequestUpdate::new(s.id, RequestStatus::Failed, SendState::Sent);
    terminal.finished_at = Some(now());
    t.store.record_updates(&[terminal]).await?;
    let raw = t.raw().await?;
    sqlx::query("UPDATE model_requests SET send_state = 'not_sent'").execute(&raw).await?;
    assert_eq!(t.store.get_request(s.id).await?.send_state, SendState::Sent, "the watermark is put back");
    let reopen = sqlx::query("UPDATE model_requests SET status = 'running', finished_at = NULL").execute(&raw).await;
    assert!(reopen.is_err(), "a terminal row cannot run again");
    let row = t.store.get_request(s.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Failed, SendState::Sent));
    let closed = sqlx::query("UPDATE model_requests SET status = 'sleeping'").execute(&raw).await;
    assert!(closed.is_err(), "closed sets are CHECK constraints");
    raw.close().await;
    t.finish().await
}

#[tokio::test]
async fn the_credentials_column_holds_no_plaintext() -> anyhow::Result<()> {
    let t = SqliteTestStore::new().await?;
    import(&t.store, "acct-1", "plain-token-XYZ").await?;
    let ciphertext: Vec<u8> =
        sqlx::query_scalar("SELECT credential_ciphertext FROM provider_accounts").fetch_one(t.store.reader()).await?;
    assert!(!ciphertext.windows(15).any(|w| w == b"plain-token-XYZ"));
    t.store.close().await;
    let file = std::fs::read(t.path())?;
    let wal = std::fs::read(t.path().with_extension("sqlite3-wal")).unwrap_or_default();
    for bytes in [&file, &wal] {
        assert!(!bytes.windows(15).any(|w| w == b"plain-token-XYZ"), "no plaintext anywhere in the files");
        assert!(!bytes.windows(13).any(|w| w == b"refresh_token"));
    }
    std::fs::remove_dir_all(t.dir())?;
    Ok(())
}

#[tokio::test]
async fn the_audit_chain_detects_edits() -> anyhow::Result<()> {
    let t = SqliteTestStore::new().await?;
    for name in ["a", "b", "c"] {
        let mut tx = t.store.begin().await?;
        tx.create_group(&group(name)).await?;
        let entry = AuditEntry::new(
            AuditActor { user_id: None, name: "admin".to_owned() },
            "group.create",
            "group",
            Some(name.to_owned()),
            serde_json::json!({ "name": name, "refresh_token": "leaked" }),
        );
        tx.commit(entry).await?;
    }
    assert_eq!(t.store.verify_audit_chain().await?, None);
    let stored: String = sqlx::query_scalar("SELECT group_concat(details, ' ') FROM admin_audit_events")
        .fetch_one(t.store.reader())
        .await?;
    assert!(!stored.contains("leaked"));
    let middle = t.store.list_audit_events(None, 10).await?[1].id;
    let raw = t.raw().await?;
    sqlx::query("UPDATE admin_audit_events SET details = '{\"name\": \"forged\"}' WHERE id = $1")
        .bind(middle)
        .execute(&raw)
        .await?;
    assert_eq!(t.store.verify_audit_chain().await?, Some(middle));
    raw.close().await;
    t.finish().await
}

/// The sealing is the same code with the same contexts: a row copied as it is stored (what moving
/// an install to PostgreSQL does) opens under the same keyring.
#[tokio::test]
async fn a_credential_sealed_by_sqlite_opens_in_postgresql() -> anyhow::Result<()> {
    use gateway_core::domain::{AccountId, CredentialSlot};
    use gateway_core::ports::CredentialStore;
    use gateway_store::crypto::Keyring;

    let t = SqliteTestStore::new().await?;
    import(&t.store, "acct-1", "tok-portable").await?;
    let (ciphertext, key_id): (Vec<u8>, String) =
        sqlx::query_as("SELECT credential_ciphertext, credential_key_id FROM provider_accounts")
            .fetch_one(t.store.reader())
            .await?;
    let pg = TestStore::with_key(t.key_config.clone()).await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO provider_accounts (provider, external_account_id, credential_ciphertext, credential_key_id, \
         credential_state) VALUES ('openai', 'acct-1', $1, $2, 'active') RETURNING id",
    )
    .bind(&ciphertext)
    .bind(&key_id)
    .fetch_one(&pg.raw)
    .await?;
    match pg.store.read_credential(AccountId(id)).await?.slot {
        CredentialSlot::Available(doc) => assert!(doc.expose_json().contains("tok-portable")),
        other => panic!("the copied row opens: {other:?}"),
    }
    // Bound to the row's identity: the same ciphertext under another account id does not open.
    sqlx::query("UPDATE provider_accounts SET external_account_id = 'acct-2'").execute(&pg.raw).await?;
    let other = pg.reopen(Keyring::from_config(&t.key_config, &[])?).await?;
    assert!(matches!(other.read_credential(AccountId(id)).await?.slot, CredentialSlot::Unreadable { .. }));
    other.close().await;
    pg.finish().await?;
    t.finish().await
}

/// One writer: a write issued while a unit of work is open waits for it and then runs; readers
/// are never blocked and see committed data only.
#[tokio::test]
async fn a_write_waits_for_the_open_unit_of_work_and_readers_see_committed_data_only() -> anyhow::Result<()> {
    use gateway_admin::ports::GroupDirectory;
    use gateway_core::domain::{QuotaFacts, QuotaRevision, QuotaState};
    use gateway_core::ports::{QuotaStore, SnapshotSource};

    let t = SqliteTestStore::new().await?;
    let account = import(&t.store, "acct-1", "tok").await?.account_id;
    let mut tx = t.store.begin().await?;
    tx.create_group(&group("pending")).await?;
    let store = t.store.clone();
    let write = tokio::spawn(async move {
        let facts = QuotaFacts { state: QuotaState::Allowed, windows: Vec::new(), observed_at: None };
        store.write_quota(account, QuotaRevision(0), facts).await
    });
    assert!(t.store.list_groups().await?.is_empty(), "the open unit of work is not visible");
    let during = t.store.load_snapshot_facts().await?;
    assert!(during.groups.is_empty() && during.accounts[0].quota_revision == QuotaRevision(0));
    assert!(!write.is_finished(), "the single writer is held by the unit of work");
    let receipt = tx.commit(audit("group.create", "group")).await?;
    assert_eq!(write.await??, QuotaRevision(1), "the waiting write ran after the commit");
    let after = t.store.load_snapshot_facts().await?;
    assert_eq!((after.config_revision, after.groups.len()), (receipt.config_revision, 1));
    assert_eq!(after.accounts[0].quota_revision, QuotaRevision(1));
    t.finish().await
}

use gateway_store::postgres::{MigrationFile, MigrationSet, StoreErrorKind};
use sqlx::Row;

use crate::postgres::test_store::TestStore;

#[tokio::test]
async fn migrate_creates_the_fifteen_tables_and_is_idempotent() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables \
         WHERE table_schema = current_schema() AND table_name NOT LIKE '\\_%' ORDER BY 1",
    )
    .fetch_all(&t.raw)
    .await?;
    assert_eq!(
        tables,
        [
            "account_cookies",
            "account_group_accounts",
            "account_groups",
            "admin_audit_events",
            "admin_users",
            "alert_rules",
            "alert_webhooks",
            "backup_records",
            "backup_settings",
            "client_api_key_groups",
            "client_api_keys",
            "model_requests",
            "ops_events",
            "provider_accounts",
            "runtime_settings",
        ]
    );
    let again = t.store.migrate().await?;
    assert!(again.applied.is_empty());
    assert_eq!(again.verified, MigrationSet::embedded().files().len());
    t.finish().await
}

#[tokio::test]
async fn a_migration_edited_after_being_applied_refuses_startup() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let edited: Vec<MigrationFile> = MigrationSet::embedded()
        .files()
        .iter()
        .map(|file| {
            let mut file = file.clone();
            if file.version == 1 {
                file.sql = format!("{}\n-- a harmless-looking edit\n", file.sql).into();
            }
            file
        })
        .collect();
    let err = t.store.migrate_with(&MigrationSet::new(edited)).await.expect_err("edited migration must be refused");
    assert_eq!(err.kind(), StoreErrorKind::MigrationModified);
    let message = err.to_string();
    assert!(message.contains("0001_initial.sql"), "names the file: {message}");
    assert!(message.contains("changed"), "says what happened: {message}");
    t.finish().await
}

#[tokio::test]
async fn an_applied_migration_unknown_to_the_binary_refuses_startup() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let row = sqlx::query("SELECT checksum FROM _sqlx_migrations WHERE version = 1").fetch_one(&t.raw).await?;
    let checksum: Vec<u8> = row.try_get("checksum")?;
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (9999, 'future', true, $1, 0)",
    )
    .bind(checksum)
    .execute(&t.raw)
    .await?;
    let err = t.store.migrate().await.expect_err("unknown applied migration must be refused");
    assert_eq!(err.kind(), StoreErrorKind::MigrationUnknown);
    assert!(err.to_string().contains("9999"));
    t.finish().await
}

#[tokio::test]
async fn ping_answers_on_a_live_database() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    t.store.ping().await?;
    t.finish().await
}

#[tokio::test]
async fn connect_to_an_unreachable_server_is_a_connect_error() {
    let err = gateway_store::postgres::connect("postgres://postgres:pw@127.0.0.1:1/none", 1)
        .await
        .expect_err("nothing listens on port 1");
    assert_eq!(err.kind(), StoreErrorKind::Connect);
    assert!(!err.to_string().contains("pw@"), "no password in the message: {err}");
}

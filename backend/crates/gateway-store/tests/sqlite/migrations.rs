use gateway_store::postgres::{MigrationFile, MigrationSet, StoreErrorKind};
use sqlx::Row;

use crate::sqlite::test_store::SqliteTestStore;

#[tokio::test]
async fn migrate_creates_the_fifteen_tables_and_is_idempotent() -> anyhow::Result<()> {
    let t = SqliteTestStore::new().await?;
    let raw = t.raw().await?;
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' \
         AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY 1",
    )
    .fetch_all(&raw)
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
    assert_eq!(again.verified, gateway_store::sqlite::embedded_migrations().files().len());
    raw.close().await;
    t.finish().await
}

#[tokio::test]
async fn a_migration_edited_after_being_applied_refuses_startup() -> anyhow::Result<()> {
    let t = SqliteTestStore::new().await?;
    let edited: Vec<MigrationFile> = gateway_store::sqlite::embedded_migrations()
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
    assert!(err.to_string().contains("0001_initial.sql"), "names the file: {err}");
    t.finish().await
}

#[tokio::test]
async fn an_applied_migration_unknown_to_the_binary_refuses_startup() -> anyhow::Result<()> {
    let t = SqliteTestStore::new().await?;
    let raw = t.raw().await?;
    let row = sqlx::query("SELECT checksum FROM _sqlx_migrations WHERE version = 1").fetch_one(&raw).await?;
    let checksum: Vec<u8> = row.try_get("checksum")?;
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (9999, 'future', true, $1, 0)",
    )
    .bind(checksum)
    .execute(&raw)
    .await?;
    let err = t.store.migrate().await.expect_err("unknown applied migration must be refused");
    assert_eq!(err.kind(), StoreErrorKind::MigrationUnknown);
    assert!(err.to_string().contains("9999"));
    raw.close().await;
    t.finish().await
}

#[tokio::test]
async fn opening_a_file_in_a_missing_directory_is_a_connect_error() -> anyhow::Result<()> {
    let t = SqliteTestStore::new().await?;
    t.store.ping().await?;
    let missing = t.dir().join("no-such-dir").join("db.sqlite3");
    let err = gateway_store::sqlite::open(&missing, 1).await.expect_err("the directory does not exist");
    assert_eq!(err.kind(), StoreErrorKind::Connect);
    assert!(err.to_string().contains("SQLite"), "{err}");
    t.finish().await
}

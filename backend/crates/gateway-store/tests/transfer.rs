//! `transfer::sqlite_to_postgres` (moving up): what only the SQLite file has is refused before
//! anything is written; a used target is refused. The full copy of a real install is tested end
//! to end in the `switchboard` package (`tests/embedded/migrate_store.rs`).

use gateway_store::transfer::{TransferError, sqlite_to_postgres};
use test_support::TestDatabase;

/// A migrated SQLite file with one client key row and `extra` run on it.
async fn source(extra: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("switchboard-transfer-test-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("switchboard.sqlite");
    let store = gateway_store::sqlite::open(&path, 1).await.expect("open");
    store.migrate().await.expect("migrate");
    sqlx::query(sqlx::AssertSqlSafe(extra.to_owned())).execute(store.writer()).await.expect("extra");
    store.close().await;
    path
}

async fn target() -> (TestDatabase, gateway_store::postgres::PgStore) {
    let db = TestDatabase::create().await.expect("database");
    let store = gateway_store::postgres::connect(db.url(), 2).await.expect("connect");
    store.migrate().await.expect("migrate");
    (db, store)
}

async fn settings_rows(store: &gateway_store::postgres::PgStore) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM runtime_settings").fetch_one(store.pool()).await.expect("count")
}

#[tokio::test]
async fn a_table_only_the_sqlite_file_has_is_refused_before_anything_is_written() {
    let path =
        source("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'x')").await;
    let (db, store) = target().await;
    let seeded = settings_rows(&store).await;
    match sqlite_to_postgres(&path, store.pool()).await {
        Err(TransferError::MissingTable(table)) => assert_eq!(table, "notes"),
        other => panic!("expected MissingTable, got {other:?}"),
    }
    assert_eq!(settings_rows(&store).await, seeded, "the seeded row is untouched");
    store.close().await;
    let _ = db.drop_schema().await;
    let _ = std::fs::remove_dir_all(path.parent().expect("dir"));
}

#[tokio::test]
async fn a_column_only_the_sqlite_file_has_rolls_the_whole_copy_back() {
    let path = source("ALTER TABLE runtime_settings ADD COLUMN extra TEXT").await;
    let (db, store) = target().await;
    match sqlite_to_postgres(&path, store.pool()).await {
        Err(TransferError::MissingColumn { table, column }) => {
            assert_eq!((table.as_str(), column.as_str()), ("runtime_settings", "extra"));
        }
        other => panic!("expected MissingColumn, got {other:?}"),
    }
    // The seeded row the copy deletes first is back: one transaction.
    assert_eq!(settings_rows(&store).await, 1);
    store.close().await;
    let _ = db.drop_schema().await;
    let _ = std::fs::remove_dir_all(path.parent().expect("dir"));
}

//! Moving up: `switchboard migrate-store --to postgres://…` copies an embedded install into
//! PostgreSQL keeping every row, and the production gateway serves from the copy.

use std::time::Duration;

use sqlx::Row;
use test_support::{TestDatabase, free_port, redis_url, unique_prefix, wait_until};

use super::Install;

async fn sqlite_counts(install: &Install) -> Vec<(String, i64)> {
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(install.data_dir().join("switchboard.sqlite"))
        .read_only(true);
    let pool = sqlx::sqlite::SqlitePoolOptions::new().max_connections(1).connect_with(options).await.expect("sqlite");
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name",
    )
    .fetch_all(&pool)
    .await
    .expect("tables");
    let mut counts = Vec::new();
    for table in tables {
        let sql = format!("SELECT count(*) FROM \"{table}\"");
        let count: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).fetch_one(&pool).await.expect("count");
        counts.push((table, count));
    }
    pool.close().await;
    counts
}

async fn wait_requests_persisted(install: &Install, n: i64) {
    wait_until("the request rows to be written", Duration::from_secs(15), || async {
        let counts = sqlite_counts(install).await;
        counts.iter().any(|(t, c)| t == "model_requests" && *c >= n).then_some(())
    })
    .await
    .expect("request rows");
}

#[tokio::test]
async fn moving_an_embedded_install_to_postgres_keeps_every_row() {
    let mut install = Install::new().await;
    install.serve().await;
    install.import_account("acct-up-1");
    install.import_account("acct-up-2");
    let key = install.cli(&["key", "create", "laptop"], None).trim().to_owned();
    install.cli(&["settings", "set", "requestIntervalMs=0"], None);
    install.wait_key_served(&key).await;
    for i in 0..3 {
        assert_eq!(install.responses(&key, &format!("answer {i}")).await.status(), 200);
    }
    wait_requests_persisted(&install, 4).await;

    // A running server holds the directory: the move is refused until it stops.
    let refused = install.run(&["migrate-store", "--to", "postgres://127.0.0.1:9/none"], None, &[]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("already serving"));
    install.stop();

    let source = sqlite_counts(&install).await;
    let db = TestDatabase::create().await.expect("test database");
    let out = install.cli(&["migrate-store", "--to", db.url()], None);
    assert!(out.contains("every count matches"), "{out}");

    // Every table the embedded store has, with the same number of rows (the migrations'
    // bookkeeping aside), counted here independently of the command.
    let pool = db.pool().await.expect("pool");
    for (table, count) in &source {
        let sql = format!("SELECT count(*) FROM {table}");
        let copied: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).fetch_one(&pool).await.expect("count");
        assert_eq!(copied, *count, "table {table}");
    }
    for table in ["provider_accounts", "client_api_keys", "admin_users", "admin_audit_events", "model_requests"] {
        assert!(source.iter().any(|(t, c)| t == table && *c > 0), "the source had {table} rows: {source:?}");
    }
    let chain = sqlx::query("SELECT count(*) AS n FROM admin_audit_events").fetch_one(&pool).await.expect("audit");
    assert!(chain.get::<i64, _>("n") >= 4, "imports, key and settings are audited");

    // The production gateway serves the same key and accounts from the copy, with the same key.
    let master_key = std::fs::read_to_string(install.data_dir().join("master.key")).expect("key").trim().to_owned();
    let port = free_port();
    let mut production = install.command();
    production
        .arg("serve")
        .env("SWITCHBOARD_DATABASE_URL", db.url())
        .env("SWITCHBOARD_REDIS_URL", redis_url())
        .env("SWITCHBOARD_REDIS_KEY_PREFIX", unique_prefix("up").replace(':', "-"))
        .env("SWITCHBOARD_SECRETS_MASTER_KEY", &master_key)
        .env("SWITCHBOARD_SERVER_LISTEN", format!("127.0.0.1:{port}"))
        .env("SWITCHBOARD_SERVER_DATA_DIR", install.root.join("production-data"))
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(install.root.join("production.log")).expect("log"));
    let mut child = production.spawn().expect("production gateway");
    let url = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::builder().no_proxy().build().expect("client");
    let answered = wait_until("the production gateway to answer", Duration::from_secs(30), || async {
        let response = client
            .post(format!("{url}/v1/responses"))
            .bearer_auth(&key)
            .json(&serde_json::json!({"model": "gpt-5.4", "input": "sim: text='moved up'"}))
            .send()
            .await
            .ok()?;
        if response.status() != 200 {
            return None;
        }
        response.json::<serde_json::Value>().await.ok()
    })
    .await;
    let _ = child.kill();
    let _ = child.wait();
    let body = answered.unwrap_or_else(|e| {
        panic!("{e}; log:\n{}", std::fs::read_to_string(install.root.join("production.log")).unwrap_or_default())
    });
    assert_eq!(body["output"][0]["content"][0]["text"], "moved up", "{body}");
    let _ = db.drop_schema().await;
}

#[tokio::test]
async fn moving_into_a_database_in_use_is_refused_and_writes_nothing() {
    let mut install = Install::new().await;
    install.serve().await;
    install.import_account("acct-busy");
    install.stop();
    let db = TestDatabase::create().await.expect("test database");
    install.cli(&["migrate-store", "--to", db.url()], None);
    // A second move into the same (now used) database.
    let output = install.run(&["migrate-store", "--to", db.url()], None, &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("already holds data"), "{output:?}");
    let pool = db.pool().await.expect("pool");
    let accounts: i64 = sqlx::query_scalar("SELECT count(*) FROM provider_accounts").fetch_one(&pool).await.expect("n");
    assert_eq!(accounts, 1, "nothing was added");
    let _ = db.drop_schema().await;
}

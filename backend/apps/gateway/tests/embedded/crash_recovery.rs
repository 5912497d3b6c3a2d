//! Crash recovery in the embedded mode (SQLite, in-process coordination): nothing of the killed
//! process survives in memory, so its restart finds the rows it left by its replica name in the
//! database and closes them at start (`replica_restarted`), within 5 s of the restart.

use std::time::{Duration, Instant};

use serde_json::json;
use test_support::wait_until;

use super::Install;

/// A stream that stays open far longer than the test (400 events, 250 ms apart).
const HOLD_OPEN: &str = "sim: events=400 delay_ms=250";

/// (status, error_code) of each row of `ids`, read from the install's SQLite file.
async fn rows(install: &Install, ids: &[uuid::Uuid]) -> Vec<(String, Option<String>, bool)> {
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(install.data_dir().join("switchboard.sqlite"))
        .read_only(true);
    let Ok(pool) = sqlx::sqlite::SqlitePoolOptions::new().max_connections(1).connect_with(options).await else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for id in ids {
        let row: Option<(String, Option<String>, Option<i64>)> =
            sqlx::query_as("SELECT status, error_code, downstream_committed_at FROM model_requests WHERE id = $1")
                .bind(id)
                .fetch_optional(&pool)
                .await
                .ok()
                .flatten();
        if let Some((status, error_code, committed)) = row {
            found.push((status, error_code, committed.is_some()));
        }
    }
    pool.close().await;
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_embedded_gateway_closes_its_predecessors_rows_at_start() {
    let mut install = Install::new().await;
    install.import_account("acct-1");
    let key = install.cli(&["key", "create", "laptop"], None).trim().to_owned();
    install.serve().await;
    install.wait_key_served(&key).await;

    let client = reqwest::Client::builder().no_proxy().build().expect("client");
    let mut streams = Vec::new();
    for i in 0..3 {
        let mut response = client
            .post(format!("{}/v1/responses", install.url()))
            .bearer_auth(&key)
            .json(&json!({"model": "gpt-5.4", "input": HOLD_OPEN, "stream": true}))
            .send()
            .await
            .expect("the request reaches the gateway");
        assert_eq!(response.status(), 200, "stream {i} opens");
        let id: uuid::Uuid = response.headers()["x-request-id"].to_str().expect("id").parse().expect("uuid");
        let first = response.chunk().await.expect("first chunk").expect("a first chunk");
        assert!(String::from_utf8_lossy(&first).contains("response.created"), "stream {i} is committed");
        streams.push((id, response));
    }
    let ids: Vec<uuid::Uuid> = streams.iter().map(|(id, _)| *id).collect();
    wait_until("the commit observations of the 3 streams", Duration::from_secs(10), || async {
        let rows = rows(&install, &ids).await;
        (rows.len() == ids.len() && rows.iter().all(|(status, _, committed)| status == "running" && *committed))
            .then_some(())
    })
    .await
    .unwrap_or_else(|e| panic!("{e}; log:\n{}", install.server_log()));

    install.crash();
    drop(streams);
    let restarted = Instant::now();
    install.serve().await;
    let ready = restarted.elapsed();
    wait_until("the killed requests' rows", Duration::from_secs(60), || async {
        let rows = rows(&install, &ids).await;
        (rows.len() == ids.len() && rows.iter().all(|(status, _, _)| status == "incomplete")).then_some(())
    })
    .await
    .unwrap_or_else(|e| panic!("{e}; log:\n{}", install.server_log()));
    let closed = restarted.elapsed();
    eprintln!("embedded kill -9 drill: ready after {ready:?}, rows incomplete {closed:?} after the restart");
    for (status, error_code, committed) in rows(&install, &ids).await {
        assert_eq!((status.as_str(), error_code.as_deref()), ("incomplete", Some("replica_restarted")));
        assert!(committed, "the commit time is kept");
    }
    assert!(closed < Duration::from_secs(5), "rows closed {closed:?} after the restart");
    let next = install.responses(&key, "hi").await;
    assert_eq!(next.status(), 200, "the restarted gateway serves");
}

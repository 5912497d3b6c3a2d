//! Crash recovery (kill -9): a restarted replica releases its predecessor's slots and recovers
//! its rows at start, so the next request is served at once; a replica that dies for good has
//! its slots expire by their short TTL and its rows recovered by a live replica.
//! `docs/reliability.md` quotes the timings of the drill.

use std::time::{Duration, Instant};

use serde_json::json;
use sqlx::Row;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

/// A stream that stays open far longer than any test (400 events, 250 ms apart).
const HOLD_OPEN: &str = "sim: events=400 delay_ms=250";

/// Opens `n` streams on `url` and reads each one's first chunk (the response is committed).
async fn open_streams(gateway: &Gateway, url: &str, n: usize) -> Vec<(String, reqwest::Response)> {
    let mut streams = Vec::with_capacity(n);
    for i in 0..n {
        let mut response = gateway
            .client()
            .post(format!("{url}/v1/responses"))
            .bearer_auth(&gateway.key)
            .json(&json!({"model": "gpt-5.4", "input": HOLD_OPEN, "stream": true}))
            .send()
            .await
            .expect("the request reaches the gateway");
        assert_eq!(response.status(), 200, "stream {i} opens");
        let id = response.headers()["x-request-id"].to_str().expect("request id").to_owned();
        let first = response.chunk().await.expect("first chunk").expect("a first chunk");
        assert!(String::from_utf8_lossy(&first).contains("response.created"), "stream {i} is committed");
        streams.push((id, response));
    }
    streams
}

/// Waits until every row of `ids` is stored and satisfies `condition` (SQL over `m`).
async fn wait_rows(pool: &sqlx::PgPool, ids: &[String], condition: &str, what: &str, deadline: Duration) {
    let ids: Vec<uuid::Uuid> = ids.iter().map(|id| id.parse().expect("uuid")).collect();
    let query = format!("SELECT count(*) FROM model_requests m WHERE m.id = ANY($1) AND ({condition})");
    test_support::wait_until(what, deadline, || async {
        let count: i64 =
            sqlx::query_scalar(sqlx::AssertSqlSafe(query.clone())).bind(&ids).fetch_one(pool).await.ok()?;
        (count == ids.len() as i64).then_some(())
    })
    .await
    .unwrap_or_else(|e| panic!("{e}"));
}

/// What a recovered row must still tell: the client had a committed stream with this id.
async fn assert_recovered_rows(pool: &sqlx::PgPool, ids: &[String]) {
    for id in ids {
        let row = sqlx::query("SELECT * FROM model_requests WHERE id = $1")
            .bind(id.parse::<uuid::Uuid>().expect("uuid"))
            .fetch_one(pool)
            .await
            .expect("row");
        assert_eq!(row.get::<String, _>("status"), "incomplete", "{id}");
        assert_eq!(row.get::<Option<String>, _>("error_code").as_deref(), Some("replica_lost"), "{id}");
        assert_eq!(row.get::<String, _>("send_state"), "sent", "{id}: the client received bytes");
        assert_eq!(row.get::<Option<i16>, _>("http_status"), Some(200), "{id}");
        assert!(row.get::<Option<time::OffsetDateTime>, _>("downstream_committed_at").is_some(), "{id}");
        let response_id = row.get::<Option<Vec<u8>>, _>("client_response_id").expect("the response id was kept");
        assert!(response_id.starts_with(b"resp_"), "{id}");
        assert!(row.get::<Option<time::OffsetDateTime>, _>("finished_at").is_some(), "{id}");
    }
}

/// The kill -9 drill with 8 streams filling every slot (2 accounts × 4), run with `env`.
/// Returns (restart until ready, first request after ready, kill until rows incomplete).
async fn kill_9_drill(env: &[(&str, &str)]) -> (Duration, Duration, Duration) {
    let mut gateway =
        Gateway::start_with(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], env).await;
    let url = gateway.url.clone();
    let streams = open_streams(&gateway, &url, 8).await;
    let ids: Vec<String> = streams.iter().map(|(id, _)| id.clone()).collect();
    let pool = gateway.pool().await;
    // What the client already received reaches the database at the commit, not at the end.
    wait_rows(
        &pool,
        &ids,
        "m.status = 'running' AND m.downstream_committed_at IS NOT NULL AND m.client_response_id IS NOT NULL",
        "the commit observations of the 8 streams",
        Duration::from_secs(10),
    )
    .await;
    let busy = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(busy.status(), 503, "every slot is held before the crash");

    let killed = Instant::now();
    gateway.crash();
    drop(streams);
    gateway.start_again().await;
    let ready = killed.elapsed();

    let asked = Instant::now();
    let next = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    let status = next.status();
    let body = next.text().await.unwrap_or_default();
    assert_eq!(status, 200, "the first request after the restart is served: {body}");
    assert!(body.contains("response.completed"), "{body}");
    let first_request = asked.elapsed();

    wait_rows(&pool, &ids, "m.status = 'incomplete'", "the killed requests' rows", Duration::from_secs(60)).await;
    let recovered = killed.elapsed();
    assert_recovered_rows(&pool, &ids).await;
    (ready, first_request, recovered)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_with_8_open_streams_then_restart_serves_at_once_and_recovers_the_rows() {
    let (ready, first, recovered) = kill_9_drill(&[("SWITCHBOARD_ENGINE_LEASE_TTL_SECONDS", "3")]).await;
    eprintln!("kill -9 drill (short TTL): ready after {ready:?}, first request {first:?}, rows after {recovered:?}");
}

/// The drill with every default setting (slot TTL 30 s, deadline 1 h), for the timings quoted in
/// `docs/reliability.md`: `cargo nextest run -p switchboard --run-ignored only -E 'test(default_settings)'`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the drill with default settings; run by hand for docs/reliability.md"]
async fn kill_9_drill_with_default_settings() {
    let (ready, first, recovered) = kill_9_drill(&[]).await;
    eprintln!("kill -9 drill (defaults): ready after {ready:?}, first request {first:?}, rows after {recovered:?}");
}

/// A replica holding every slot of the only account dies for good (kill -9, no restart) with
/// `env`. Returns (kill until another replica is served, kill until the rows are recovered).
async fn dead_replica_drill(env: &[(&str, &str)]) -> (Duration, Duration) {
    let gateway = Gateway::start_with(vec![AccountSpec::openai("acct-a")], env).await;
    let replica = gateway.replica().await;
    let streams = open_streams(&gateway, &replica.url, 4).await;
    let ids: Vec<String> = streams.iter().map(|(id, _)| id.clone()).collect();
    let pool = gateway.pool().await;
    wait_rows(&pool, &ids, "m.downstream_committed_at IS NOT NULL", "the replica's rows", Duration::from_secs(10))
        .await;
    let busy = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(busy.status(), 503, "the replica holds the account's 4 slots");

    let killed = Instant::now();
    drop(replica); // SIGKILL, and it never comes back
    drop(streams);
    test_support::wait_until("the dead replica's slots to expire", Duration::from_secs(120), || async {
        let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
        (response.status() == 200).then_some(())
    })
    .await
    .expect("served again once the dead replica's slots expired");
    let served = killed.elapsed();
    wait_rows(&pool, &ids, "m.status = 'incomplete'", "the dead replica's rows", Duration::from_secs(120)).await;
    assert_recovered_rows(&pool, &ids).await;
    (served, killed.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_replica_recovers_the_rows_and_slots_of_a_replica_that_died() {
    let (served, recovered) = dead_replica_drill(&[("SWITCHBOARD_ENGINE_LEASE_TTL_SECONDS", "3")]).await;
    assert!(recovered < Duration::from_secs(60), "rows recovered within a minute: {recovered:?}");
    eprintln!("dead replica (TTL 3 s): served after {served:?}, rows after {recovered:?}");
}

/// The dead-replica drill with default settings (slot TTL 30 s), for `docs/reliability.md`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the drill with default settings; run by hand for docs/reliability.md"]
async fn dead_replica_drill_with_default_settings() {
    let (served, recovered) = dead_replica_drill(&[]).await;
    eprintln!("dead replica (defaults): served after {served:?}, rows after {recovered:?}");
}

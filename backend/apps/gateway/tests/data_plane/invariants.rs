//! SPEC §3 invariants that need the whole process to show.

use serde_json::json;
use sqlx::Row;
use upstream_sim::AccountSpec;

use super::make_sticky;
use crate::gateway::{Gateway, terminal_rows};

/// Invariant 2: the database projection is never a precondition for sending. With the request
/// table unwritable the client is still served; the lost observations are counted, not waited on.
#[tokio::test]
async fn requests_are_served_while_the_request_log_cannot_be_written() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let pool = gateway.pool().await;
    sqlx::query("CREATE FUNCTION refuse_writes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'writes refused by the test'; END $$")
        .execute(&pool)
        .await
        .expect("function");
    sqlx::query("CREATE TRIGGER refuse_writes BEFORE INSERT OR UPDATE ON model_requests FOR EACH ROW EXECUTE FUNCTION refuse_writes()")
        .execute(&pool)
        .await
        .expect("trigger");
    for _ in 0..3 {
        let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
        assert_eq!(response.status(), 200);
        assert!(String::from_utf8_lossy(&response.bytes().await.expect("body")).contains("response.completed"));
    }
    // Wait until the flusher has tried (and failed) to write every queued observation.
    test_support::wait_until("the queue to drain", std::time::Duration::from_secs(10), || async {
        let metrics = gateway.client().get(format!("{}/metrics", gateway.url)).send().await.ok()?.text().await.ok()?;
        let value = |name: &str| -> Option<u64> {
            metrics.lines().find(|l| l.starts_with(&format!("{name} ")))?.split(' ').nth(1)?.parse().ok()
        };
        let enqueued = value("switchboard_observations_enqueued_total")?;
        let written = value("switchboard_observations_written_total")?;
        let dropped = value("switchboard_observations_dropped_write_total")?;
        (enqueued >= 6 && enqueued == written + dropped && dropped >= 3).then_some(())
    })
    .await
    .expect("the failed writes are counted");
    sqlx::query("DROP TRIGGER refuse_writes ON model_requests").execute(&pool).await.expect("drop trigger");
    // The log recovers: a later request is recorded again.
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi"})).await;
    assert_eq!(response.status(), 200);
    let rows = terminal_rows(&pool, 1).await;
    assert_eq!(rows.len(), 1, "only the request made after the outage was recorded");
    let total: i64 = sqlx::query_scalar("SELECT count(*) FROM model_requests").fetch_one(&pool).await.expect("count");
    assert_eq!(total, 1);
}

/// Invariant 3: an unclear outcome (the connection dies after the request was written, before
/// any answer) raises the watermark to `ambiguous` and is never replayed on another account.
#[tokio::test]
async fn an_ambiguous_outcome_is_not_replayed() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")]).await;
    let pool = gateway.pool().await;
    make_sticky(&gateway).await;
    gateway.sim.script("acct-a", "reset_after=0", 1).expect("script");
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 504);
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["error"]["code"], "upstream_timeout");
    let calls_b = gateway
        .sim
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/codex/responses") && r.account_id.as_deref() == Some("acct-b"))
        .count();
    assert_eq!(calls_b, 0, "an ambiguous call is never replayed");
    let rows = terminal_rows(&pool, 1).await;
    assert_eq!(rows[0].get::<String, _>("send_state"), "ambiguous");
    assert_eq!(rows[0].get::<String, _>("status"), "failed");
}

/// Invariant 7: identity is bound to each call; consecutive calls over the gateway's pooled
/// upstream connections carry each account's own credential.
#[tokio::test]
async fn each_upstream_call_carries_its_own_accounts_credential() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")]).await;
    make_sticky(&gateway).await;
    gateway.sim.script("acct-a", "status=503", 1).expect("script");
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi"})).await;
    assert_eq!(response.status(), 200);
    let calls: Vec<_> = gateway.sim.requests().into_iter().filter(|r| r.path.ends_with("/codex/responses")).collect();
    assert_eq!(calls.len(), 2);
    let header = |r: &upstream_sim::RecordedRequest, name: &str| {
        r.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap_or_default()
    };
    assert_eq!(calls[0].account_id.as_deref(), Some("acct-a"));
    assert_eq!(calls[1].account_id.as_deref(), Some("acct-b"));
    assert_eq!(header(&calls[0], "chatgpt-account-id"), "acct-a");
    assert_eq!(header(&calls[1], "chatgpt-account-id"), "acct-b");
    assert_ne!(header(&calls[0], "authorization"), header(&calls[1], "authorization"));
}

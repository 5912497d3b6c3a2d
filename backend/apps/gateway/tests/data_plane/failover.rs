//! The failover matrix: what happens to each kind of upstream failure before and after the
//! downstream commit.

use serde_json::{Value, json};
use sqlx::Row;
use upstream_sim::AccountSpec;

use super::{events, make_sticky};
use crate::gateway::{Gateway, terminal_rows};

async fn two_accounts() -> Gateway {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")]).await;
    make_sticky(&gateway).await;
    gateway
}

fn attempt_outcomes(row: &sqlx::postgres::PgRow) -> Vec<(String, String)> {
    let attempts: Value = row.get("attempts");
    attempts
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| (a["accountId"].to_string(), a["outcome"].as_str().unwrap_or_default().to_owned()))
        .collect()
}

fn calls_to(gateway: &Gateway, account: &str) -> usize {
    gateway
        .sim
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/codex/responses") && r.account_id.as_deref() == Some(account))
        .count()
}

#[tokio::test]
async fn unauthorized_refreshes_the_credential_and_retries_the_same_account() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    gateway.sim.expire_access_tokens("acct-a").expect("expire");
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body");
    let refreshes = gateway.sim.requests().iter().filter(|r| r.path.ends_with("/oauth/token")).count();
    assert_eq!(refreshes, 1, "exactly one refresh");
    let rows = terminal_rows(&gateway.pool().await, 1).await;
    let outcomes = attempt_outcomes(&rows[0]);
    assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    assert_eq!(outcomes[0].1, "upstream_unauthorized");
    assert_eq!(outcomes[1].1, "ok");
    assert_eq!(outcomes[0].0, outcomes[1].0, "the retry stays on the same account");
    let revision: i64 = sqlx::query_scalar("SELECT credential_revision FROM provider_accounts")
        .fetch_one(&gateway.pool().await)
        .await
        .expect("revision");
    assert!(revision > 1, "the rotated credential was stored (revision {revision})");
}

#[tokio::test]
async fn a_429_moves_to_the_next_account_and_cools_the_first_one_down() {
    let gateway = two_accounts().await;
    gateway.sim.script("acct-a", "status=429 retry_after=120", 1).expect("script");
    let first = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(first.status(), 200);
    first.bytes().await.expect("body");
    // The cooldown keeps the next request away from acct-a although acct-a is first in order.
    let second = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(second.status(), 200);
    second.bytes().await.expect("body");
    assert_eq!(calls_to(&gateway, "acct-a"), 1);
    assert_eq!(calls_to(&gateway, "acct-b"), 2);
    let rows = terminal_rows(&gateway.pool().await, 2).await;
    let outcomes = attempt_outcomes(&rows[0]);
    assert_eq!(outcomes.iter().map(|o| o.1.as_str()).collect::<Vec<_>>(), vec!["usage_limit_reached", "ok"]);
    assert_eq!(attempt_outcomes(&rows[1]).len(), 1);
}

#[tokio::test]
async fn a_server_error_before_the_commit_moves_to_the_next_account() {
    let gateway = two_accounts().await;
    gateway.sim.script("acct-a", "status=500", 1).expect("script");
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi"})).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["status"], "completed");
    let rows = terminal_rows(&gateway.pool().await, 1).await;
    let outcomes = attempt_outcomes(&rows[0]);
    assert_eq!(outcomes.iter().map(|o| o.1.as_str()).collect::<Vec<_>>(), vec!["upstream_unavailable", "ok"]);
    assert_eq!(rows[0].get::<String, _>("status"), "completed");
}

#[tokio::test]
async fn a_failure_after_the_commit_ends_with_an_error_event_and_no_retry() {
    let gateway = two_accounts().await;
    gateway.sim.script("acct-a", "events=20 drop_after=4", 1).expect("script");
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 200, "the stream was committed");
    let text = response.text().await.expect("body");
    let parsed = events(&text);
    assert_eq!(parsed[0].0, "response.created");
    let last = parsed.last().expect("events");
    assert_eq!(last.0, "error", "{text}");
    assert!(!parsed.iter().any(|(name, _)| name == "response.completed"));
    assert_eq!(calls_to(&gateway, "acct-a"), 1);
    assert_eq!(calls_to(&gateway, "acct-b"), 0, "nothing is retried after the commit");
    let rows = terminal_rows(&gateway.pool().await, 1).await;
    assert_eq!(rows[0].get::<String, _>("status"), "incomplete");
    assert_eq!(rows[0].get::<String, _>("send_state"), "sent");
    assert!(rows[0].get::<Option<time::OffsetDateTime>, _>("downstream_committed_at").is_some());
}

#[tokio::test]
async fn every_account_exhausted_answers_503_no_available_account() {
    let gateway = two_accounts().await;
    gateway.sim.exhaust_quota("acct-a").expect("exhaust");
    gateway.sim.exhaust_quota("acct-b").expect("exhaust");
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["code"], "no_available_account");
    // Both accounts now cool down: the next request fails without calling upstream.
    let calls_before = gateway.sim.requests().len();
    let again = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(again.status(), 503);
    assert_eq!(gateway.sim.requests().len(), calls_before);
}

#[tokio::test]
async fn an_unknown_model_is_404_model_not_found() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let response = gateway.responses(json!({"model": "gpt-nonexistent", "input": "hi"})).await;
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["code"], "model_not_found");
    assert_eq!(body["error"]["param"], "model");
    assert!(gateway.sim.requests().iter().all(|r| !r.path.ends_with("/codex/responses")));
}

#[tokio::test]
async fn an_upstream_refusal_of_the_request_itself_reaches_the_client() {
    let gateway = two_accounts().await;
    gateway.sim.script("acct-a", "status=400 message='Invalid input item'", 1).expect("script");
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi"})).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert_eq!(calls_to(&gateway, "acct-b"), 0, "a refused request is not retried elsewhere");
}

//! Client key spend budgets end to end: a key whose finished requests used up its daily token or
//! monthly cost budget is refused with 429 `budget_exceeded` (OpenAI's `insufficient_quota`
//! type) and a `Retry-After` until the period resets; nothing reaches upstream for it, and
//! other keys are unaffected.

use serde_json::{Value, json};
use upstream_sim::AccountSpec;

use crate::gateway::{Gateway, terminal_rows};

/// 1,200 input (1,000 cached) + 300 output tokens: 1,500 tokens, 0.004725 USD for gpt-5.4.
const PRICED_INPUT: &str = "sim: input_tokens=1200 cached_tokens=1000 output_tokens=300 reasoning_tokens=100";

async fn send(gateway: &Gateway, key: &str, stream: bool) -> reqwest::Response {
    gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .bearer_auth(key)
        .json(&json!({"model": "gpt-5.4", "input": PRICED_INPUT, "stream": stream}))
        .send()
        .await
        .expect("sent")
}

async fn refused(gateway: &Gateway, key: &str, stream: bool) -> (u64, Value) {
    let response = send(gateway, key, stream).await;
    assert_eq!(response.status(), 429, "a spent budget is refused");
    let retry_after: u64 = response.headers()["retry-after"].to_str().expect("ascii").parse().expect("seconds");
    (retry_after, response.json().await.expect("an OpenAI error body"))
}

fn upstream_calls(gateway: &Gateway) -> usize {
    gateway.sim.requests().iter().filter(|r| r.path.ends_with("/codex/responses")).count()
}

#[tokio::test]
async fn a_key_that_spent_its_budget_is_refused_until_the_period_resets() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let tokens_key = gateway.cli(&["key", "create", "daily-tokens", "--daily-tokens", "1000"], None).trim().to_owned();
    let cost_key = gateway.cli(&["key", "create", "monthly-usd", "--monthly-usd", "0.004"], None).trim().to_owned();
    crate::data_plane::wait_for_reload(&gateway).await;

    // Under budget: served. The spend is counted when the response finishes.
    for (n, key) in [&tokens_key, &cost_key].into_iter().enumerate() {
        let response = send(&gateway, key, true).await;
        assert_eq!(response.status(), 200);
        response.bytes().await.expect("stream");
        terminal_rows(&gateway.pool().await, i64::try_from(n + 1).expect("small")).await;
    }

    for stream in [false, true] {
        let (retry_after, body) = refused(&gateway, &tokens_key, stream).await;
        assert_eq!(body["error"]["type"], "insufficient_quota");
        assert_eq!(body["error"]["code"], "budget_exceeded");
        let message = body["error"]["message"].as_str().expect("message");
        assert!(message.contains("daily token budget of 1000 tokens (1500 used)"), "{message}");
        assert!((1..=86_400).contains(&retry_after), "until the next UTC midnight: {retry_after}");
    }
    let (retry_after, body) = refused(&gateway, &cost_key, false).await;
    let message = body["error"]["message"].as_str().expect("message");
    assert!(message.contains("monthly cost budget of $0.004000000 ($0.004725000 used)"), "{message}");
    assert!((1..=31 * 86_400).contains(&retry_after), "until the first of next month: {retry_after}");
    assert_eq!(upstream_calls(&gateway), 2, "refused requests never reach upstream");

    // Another key is not charged for them.
    let response = send(&gateway, &gateway.key, false).await;
    assert_eq!(response.status(), 200);
    assert_eq!(upstream_calls(&gateway), 3);
}

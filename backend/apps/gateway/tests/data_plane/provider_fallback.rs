//! Provider fallback with both real providers (SPEC §4, invariant 6): a request for an OpenAI
//! model that xAI also serves (`providers.xai.model_map`) falls to xAI only while nothing was
//! sent to OpenAI.

use serde_json::{Value, json};
use upstream_sim::AccountSpec;

use crate::gateway::{Gateway, terminal_rows};

const MAP: (&str, &str) = ("SWITCHBOARD_PROVIDERS_XAI_MODEL_MAP", r#"["gpt-5.4=grok-4.5"]"#);

fn calls(gateway: &Gateway, suffix: &str) -> usize {
    gateway.sim.requests().iter().filter(|r| r.path.ends_with(suffix)).count()
}

#[tokio::test]
async fn an_openai_request_falls_to_xai_while_not_sent() {
    // OpenAI's backend does not accept connections: its attempt is `not_sent`.
    let closed = format!("http://127.0.0.1:{}/backend-api", test_support::free_port());
    let gateway = Gateway::start_with(
        vec![AccountSpec::openai("acct-a"), AccountSpec::xai("grok-a")],
        &[MAP, ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL", &closed)],
    )
    .await;
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 200);
    let body = response.text().await.expect("body");
    assert!(body.contains("response.completed"), "{body}");
    assert_eq!(calls(&gateway, "/xai/v1/responses"), 1, "xAI served the request");
    let sent: Value = serde_json::from_str(
        &gateway.sim.requests().iter().rev().find(|r| r.path.ends_with("/xai/v1/responses")).expect("call").body,
    )
    .expect("json");
    assert_eq!(sent["model"], json!("grok-4.5"), "the mapped Grok model went upstream");
    let rows = terminal_rows(&gateway.pool().await, 1).await;
    let attempts: Value = sqlx::Row::get(&rows[0], "attempts");
    let providers: Vec<&str> =
        attempts.as_array().expect("attempts").iter().filter_map(|a| a["provider"].as_str()).collect();
    assert_eq!(providers.last(), Some(&"xai"), "{attempts}");
    assert!(providers.contains(&"openai"), "OpenAI was tried first: {attempts}");
}

#[tokio::test]
async fn a_request_that_reached_openai_never_falls_to_xai() {
    let gateway = Gateway::start_with(vec![AccountSpec::openai("acct-a"), AccountSpec::xai("grok-a")], &[MAP]).await;
    gateway.sim.script("acct-a", "status=500", 1).expect("script");
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert!(response.status().is_server_error(), "{}", response.status());
    response.bytes().await.expect("body");
    assert_eq!(calls(&gateway, "/codex/responses"), 1, "OpenAI got the request");
    assert_eq!(calls(&gateway, "/xai/v1/responses"), 0, "a sent request does not move to another provider");
}

#[tokio::test]
async fn with_openai_healthy_the_request_stays_on_openai() {
    let gateway = Gateway::start_with(vec![AccountSpec::openai("acct-a"), AccountSpec::xai("grok-a")], &[MAP]).await;
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body");
    assert_eq!(calls(&gateway, "/codex/responses"), 1);
    assert_eq!(calls(&gateway, "/xai/v1/responses"), 0, "OpenAI comes first in the route plan");
}

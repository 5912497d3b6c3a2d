//! Shared helpers: a started simulator, an HTTP client, SSE parsing.

use serde_json::{Value, json};
use upstream_sim::{AccountSpec, SimConfig, SimHandle, Simulator, TokenSet};

pub async fn sim() -> SimHandle {
    Simulator::start(SimConfig::default()).await.expect("simulator starts on 127.0.0.1:0")
}

/// A simulator with one OpenAI account `acct` on `plan`.
pub async fn sim_with_openai(plan: &str) -> (SimHandle, TokenSet) {
    let sim = sim().await;
    let tokens = sim.add_account(AccountSpec::openai("acct").with_plan(plan)).expect("new account");
    (sim, tokens)
}

/// A simulator with one xAI account `grok` on `plan`.
pub async fn sim_with_xai(plan: &str) -> (SimHandle, TokenSet) {
    let sim = sim().await;
    let tokens = sim.add_account(AccountSpec::xai("grok").with_plan(plan)).expect("new account");
    (sim, tokens)
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("reqwest client builds")
}

/// `(event name, data)` pairs of an SSE body; `data: [DONE]` becomes `("", "[DONE]")`.
pub fn parse_sse(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .map(|frame| {
            let mut name = String::new();
            let mut data = String::new();
            for line in frame.lines() {
                if let Some(rest) = line.strip_prefix("event: ") {
                    name = rest.to_owned();
                } else if let Some(rest) = line.strip_prefix("data: ") {
                    data.push_str(rest);
                }
            }
            let value = serde_json::from_str(&data).unwrap_or(Value::String(data));
            (name, value)
        })
        .collect()
}

/// A Codex-style Responses body with one user message.
pub fn codex_body(text: &str) -> Value {
    json!({
        "model": "gpt-5.4",
        "instructions": "You are a test.",
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}],
        "tools": [],
        "tool_choice": "auto",
        "parallel_tool_calls": true,
        "store": false,
        "stream": true,
        "include": ["reasoning.encrypted_content"],
    })
}

/// POSTs a Responses body to the Codex backend as the account of `tokens`.
pub async fn post_codex(sim: &SimHandle, tokens: &TokenSet, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("chatgpt-account-id", &tokens.account_id)
        .json(body)
        .send()
        .await
        .expect("request reaches the simulator")
}

/// The event names of an SSE body.
pub fn names(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(name, _)| name.as_str()).collect()
}

/// The xAI client headers that pass the gate.
pub fn xai_request(sim: &SimHandle, tokens: &TokenSet, path: &str) -> reqwest::RequestBuilder {
    client()
        .post(format!("{}{path}", sim.xai_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-xai-token-auth", "xai-grok-cli")
        .header("x-grok-client-version", "0.2.120")
}

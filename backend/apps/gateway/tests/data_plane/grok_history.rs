//! A Grok conversation that carries reasoning items (PROTOCOL H.3, H.5, H.7) and the cost xAI
//! reports in ticks (H.4): a real gateway and the simulator, whose reasoning ciphertext only the
//! account that produced it can decrypt.

use serde_json::{Value, json};
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

fn xai_calls(gateway: &Gateway) -> Vec<Value> {
    gateway
        .sim
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/xai/v1/responses"))
        .map(|r| r.json().expect("json body"))
        .collect()
}

fn reasoning_items(body: &Value) -> Vec<Value> {
    body["input"].as_array().expect("input").iter().filter(|i| i["type"] == "reasoning").cloned().collect()
}

/// The second turn: the first answer's output items between the two user messages.
fn second_turn(first_output: &[Value]) -> Value {
    let mut input = vec![json!({"type": "message", "role": "user", "content": "first question"})];
    input.extend(first_output.iter().cloned());
    input.push(json!({"type": "message", "role": "user", "content": "sim: text='second answer'"}));
    json!({"model": "grok-4.5", "input": input, "store": false})
}

/// A reasoning item sealed to `account`, asked of the simulator directly.
async fn reasoning_made_by(gateway: &Gateway, account: &str) -> Value {
    let tokens = gateway.sim.add_account(AccountSpec::xai(account)).expect("account");
    let body: Value = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client")
        .post(format!("{}/responses", gateway.sim.xai_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-xai-token-auth", "xai-grok-cli")
        .header("x-grok-client-version", "0.2.120")
        .json(&json!({"model": "grok-4.5", "input": "sim: reasoning=1", "store": false}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    body["output"].as_array().expect("output").iter().find(|i| i["type"] == "reasoning").expect("reasoning").clone()
}

#[tokio::test]
async fn a_conversation_replays_its_reasoning_on_the_account_that_made_it() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let first = gateway.responses(json!({"model": "grok-4.5", "input": "sim: reasoning=1 text='first answer'"})).await;
    assert_eq!(first.status(), 200);
    let first: Value = first.json().await.expect("json");
    let output = first["output"].as_array().expect("output").clone();
    let ciphertext = output[0]["encrypted_content"].as_str().expect("reasoning ciphertext reaches the client");

    let second = gateway.responses(second_turn(&output)).await;
    assert_eq!(second.status(), 200, "the history with its reasoning is accepted");
    let second: Value = second.json().await.expect("json");
    assert_eq!(second["output"][0]["content"][0]["text"], json!("second answer"));
    let calls = xai_calls(&gateway);
    assert_eq!(calls.len(), 2, "no resend");
    let replayed = reasoning_items(&calls[1]);
    assert_eq!(replayed.len(), 1);
    assert_eq!(replayed[0]["encrypted_content"], json!(ciphertext), "the ciphertext goes back unchanged");
    assert!(replayed[0].get("status").is_none(), "only the portable fields: {}", replayed[0]);
}

#[tokio::test]
async fn reasoning_the_client_did_not_send_back_is_replayed_from_the_session_cache() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let first = gateway
        .responses(json!({"model": "grok-4.5", "input": "sim: reasoning=1 text='first answer'",
            "prompt_cache_key": "conversation-1"}))
        .await;
    assert_eq!(first.status(), 200);
    let first: Value = first.json().await.expect("json");
    let ciphertext = first["output"][0]["encrypted_content"].as_str().expect("reasoning ciphertext").to_owned();

    // A client that keeps only the text (a Chat Completions client does): no reasoning item.
    let text = json!([{"type": "output_text", "text": "first answer"}]);
    let input = json!([
        {"type": "message", "role": "user", "content": "first question"},
        {"type": "message", "role": "assistant", "content": text},
        {"type": "message", "role": "user", "content": "sim: text='second answer'"},
    ]);
    let second = json!({"model": "grok-4.5", "input": input, "prompt_cache_key": "conversation-1"});
    let response = gateway.responses(second.clone()).await;
    assert_eq!(response.status(), 200, "the simulator decrypts the replayed ciphertext");
    let calls = xai_calls(&gateway);
    assert_eq!(calls.len(), 2, "no resend");
    let sent = calls[1]["input"].as_array().expect("input");
    assert_eq!(sent.len(), 4, "{sent:?}");
    assert_eq!(sent[1]["type"], json!("reasoning"), "inserted before the assistant message it produced");
    assert_eq!(sent[1]["encrypted_content"], json!(ciphertext));
    assert_eq!(sent[2]["role"], json!("assistant"));

    // Without a session nothing is cached: the same history goes up as the client sent it.
    let mut sessionless = second;
    sessionless.as_object_mut().expect("object").remove("prompt_cache_key");
    assert_eq!(gateway.responses(sessionless).await.status(), 200);
    assert!(reasoning_items(&xai_calls(&gateway)[2]).is_empty());
}

#[tokio::test]
async fn reasoning_another_account_made_is_sent_once_more_without_its_ciphertext() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let foreign = reasoning_made_by(&gateway, "grok-elsewhere").await;
    let before = xai_calls(&gateway).len();
    let text = json!([{"type": "output_text", "text": "first answer"}]);
    let output = [foreign.clone(), json!({"type": "message", "role": "assistant", "content": text})];

    let response = gateway.responses(second_turn(&output)).await;
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap_or_default());
    let calls = xai_calls(&gateway)[before..].to_vec();
    assert_eq!(calls.len(), 2, "refused once, then sent once more");
    assert_eq!(reasoning_items(&calls[0])[0]["encrypted_content"], foreign["encrypted_content"]);
    let resent = reasoning_items(&calls[1]);
    assert!(resent[0].get("encrypted_content").is_none(), "{}", resent[0]);
    assert_eq!(resent[0]["content"], foreign["content"], "the readable reasoning stays");
    let rows = crate::gateway::terminal_rows(&gateway.pool().await, 1).await;
    let status: String = sqlx::Row::get(&rows[0], "status");
    assert_eq!(status, "completed");
}

#[tokio::test]
async fn another_vendors_ciphertext_never_reaches_xai() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let codex = json!({"type": "reasoning", "id": "rs_codex", "summary": [{"type": "summary_text", "text": "thought"}],
        "encrypted_content": format!("gAAAAAB{}", "QUJD".repeat(40))});
    let bare = json!({"type": "reasoning", "id": "rs_empty", "summary": [], "encrypted_content": "not base64!"});
    let text = json!([{"type": "output_text", "text": "first answer"}]);
    let output = [codex, bare, json!({"type": "message", "role": "assistant", "content": text})];
    let response = gateway.responses(second_turn(&output)).await;
    assert_eq!(response.status(), 200);
    let calls = xai_calls(&gateway);
    assert_eq!(calls.len(), 1, "dropped before sending, so nothing is refused");
    let input = calls[0]["input"].as_array().expect("input");
    assert_eq!(
        input[1],
        json!({"type": "reasoning", "id": "rs_codex", "summary": [{"type": "summary_text", "text": "thought"}]})
    );
    assert_eq!(input[2]["role"], json!("developer"), "nothing portable: a note instead");
    assert!(input[2]["content"][0]["text"].as_str().expect("note").contains("rs_empty"));
}

#[tokio::test]
async fn the_cost_xai_reports_in_ticks_is_the_recorded_cost() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let response =
        gateway.responses(json!({"model": "grok-4.5", "input": "sim: cost_ticks=1234567", "stream": true})).await;
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body");
    let rows = crate::gateway::terminal_rows(&gateway.pool().await, 1).await;
    let cost: Option<i64> = sqlx::Row::get(&rows[0], "cost_nano_usd");
    assert_eq!(cost, Some(123_457), "1,234,567 ticks of 1e-10 USD");
}

//! `POST /v1/chat/completions` through a real gateway and the simulator: the conversion wraps
//! the engine (one request row, failover before the commit, accounting after a stop match).

use serde_json::{Value, json};
use sqlx::Row;
use upstream_sim::AccountSpec;

use super::{chat, chunks, content};
use crate::data_plane::make_sticky;
use crate::gateway::{Gateway, terminal_rows};

fn user(text: &str) -> Value {
    json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": text}])
}

#[tokio::test]
async fn a_non_stream_completion_is_converted_both_ways_and_recorded_once() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let response = chat(
        &gateway,
        json!({"model": "gpt-5.4", "messages": user("sim: text='hello chat' input_tokens=31 output_tokens=4"),
            "max_tokens": 99, "temperature": 0.3, "response_format": {"type": "json_object"}}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["object"], "chat.completion");
    assert!(body["id"].as_str().expect("id").starts_with("chatcmpl-"));
    assert_eq!(body["choices"][0]["message"]["content"], "hello chat");
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
    assert_eq!(body["usage"]["prompt_tokens"], 31);
    assert_eq!(body["usage"]["completion_tokens"], 4);
    // Upstream saw a Responses body: no `messages`, the refused parameters dropped.
    let sent = gateway.sim.requests().into_iter().rev().find(|r| r.path.ends_with("/codex/responses")).expect("call");
    let sent: Value = serde_json::from_str(&sent.body).expect("json");
    assert!(sent.get("messages").is_none() && sent.get("max_output_tokens").is_none());
    assert!(sent.get("temperature").is_none() && sent.get("response_format").is_none());
    assert_eq!(sent["text"]["format"]["type"], "json_object");
    assert_eq!(sent["input"][0]["role"], "developer");
    assert_eq!((sent["stream"].clone(), sent["store"].clone()), (json!(true), json!(false)));
    let rows = terminal_rows(&gateway.pool().await, 1).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].get::<String, _>("operation"), "chat.completions");
    assert_eq!(rows[0].get::<String, _>("status"), "completed");
    assert_eq!(rows[0].get::<Option<i64>, _>("input_tokens"), Some(31));
}

#[tokio::test]
async fn an_emoji_stop_split_across_upstream_events_ends_the_text_exactly_before_it() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    // Six characters in six delta events: 👍 and 🏽 (one emoji) arrive in different events.
    let response = chat(
        &gateway,
        json!({"model": "gpt-5.4", "messages": user("sim: text='ab👍🏽cd' events=6 output_tokens=6"),
            "stop": ["👍🏽"], "stream": true, "stream_options": {"include_usage": true}}),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let chunks = chunks(&response.text().await.expect("body"));
    assert_eq!(content(&chunks), "ab");
    let finish: Vec<&str> =
        chunks.iter().filter_map(|c| c.pointer("/choices/0/finish_reason").and_then(Value::as_str)).collect();
    assert_eq!(finish, vec!["stop"]);
    let usage = chunks.iter().find(|c| c.get("usage").is_some()).expect("usage chunk");
    assert_eq!(usage["usage"]["completion_tokens"], 6, "the upstream was drained to its terminal event");
    assert_eq!(chunks.last(), Some(&json!("[DONE]")));
    let rows = terminal_rows(&gateway.pool().await, 1).await;
    assert_eq!(rows[0].get::<String, _>("status"), "completed");
    assert_eq!(rows[0].get::<Option<i64>, _>("output_tokens"), Some(6));
}

#[tokio::test]
async fn a_tool_call_round_trip_streams_tool_calls_and_posts_the_result_back() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let tools = json!([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]);
    let ask = user("sim: tool=get_weather args='{\"city\":\"Paris\"}' final='sunny, said the tool'");
    let response = chat(&gateway, json!({"model": "gpt-5.4", "messages": ask, "tools": tools, "stream": true})).await;
    let chunks = chunks(&response.text().await.expect("body"));
    let calls: Vec<&Value> = chunks.iter().filter_map(|c| c.pointer("/choices/0/delta/tool_calls/0")).collect();
    let id = calls[0]["id"].as_str().expect("call id").to_owned();
    assert_eq!(calls[0]["function"]["name"], "get_weather");
    let arguments: String =
        calls.iter().filter_map(|c| c.pointer("/function/arguments").and_then(Value::as_str)).collect();
    assert_eq!(serde_json::from_str::<Value>(&arguments).expect("arguments"), json!({"city": "Paris"}));
    assert!(chunks.iter().any(|c| c.pointer("/choices/0/finish_reason") == Some(&json!("tool_calls"))));

    let mut messages = ask.as_array().expect("messages").clone();
    messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": id, "type": "function", "function": {"name": "get_weather", "arguments": arguments}}]}));
    messages.push(json!({"role": "tool", "tool_call_id": id, "content": "sunny"}));
    let response = chat(&gateway, json!({"model": "gpt-5.4", "messages": messages, "tools": tools})).await;
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["choices"][0]["message"]["content"], "sunny, said the tool");
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
    let sent = gateway.sim.requests().into_iter().rev().find(|r| r.path.ends_with("/codex/responses")).expect("call");
    let input: Value = serde_json::from_str::<Value>(&sent.body).expect("json")["input"].clone();
    assert!(input.as_array().expect("input").iter().any(|i| i["type"] == "function_call_output" && i["call_id"] == id));
}

#[tokio::test]
async fn a_failure_before_the_commit_fails_over_and_one_after_it_is_one_error_chunk() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")]).await;
    make_sticky(&gateway).await;
    gateway.sim.script("acct-a", "status=500", 1).expect("script");
    let response =
        chat(&gateway, json!({"model": "gpt-5.4", "messages": user("sim: text='fine'"), "stream": true})).await;
    assert_eq!(response.status(), 200);
    assert_eq!(content(&chunks(&response.text().await.expect("body"))), "fine");

    gateway.sim.script("acct-a", "events=8 fail=server_error message='upstream secret detail'", 1).expect("script");
    gateway.sim.script("acct-b", "events=8 fail=server_error message='upstream secret detail'", 1).expect("script");
    let response = chat(&gateway, json!({"model": "gpt-5.4", "messages": user("hi"), "stream": true})).await;
    assert_eq!(response.status(), 200, "committed");
    let text = response.text().await.expect("body");
    let chunks = chunks(&text);
    let errors: Vec<&Value> = chunks.iter().filter(|c| c.get("error").is_some()).collect();
    assert_eq!(errors.len(), 1, "{text}");
    assert_eq!(errors[0]["error"]["code"], "server_error");
    assert!(!text.contains("secret detail"), "the upstream's message is not relayed");
    assert!(!text.contains("[DONE]"));
}

#[tokio::test]
async fn bad_input_is_refused_before_any_upstream_call() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let response = chat(&gateway, json!({"model": "gpt-5.4", "messages": [{"role": "wizard", "content": "x"}]})).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["code"], "invalid_request");
    assert_eq!(body["error"]["param"], "messages[0].role");
    let unauthenticated = gateway
        .client()
        .post(format!("{}/v1/chat/completions", gateway.url))
        .bearer_auth("sk-sb-wrong")
        .json(&json!({"model": "gpt-5.4", "messages": user("hi")}))
        .send()
        .await
        .expect("sent");
    assert_eq!(unauthenticated.status(), 401);
    assert!(!gateway.sim.requests().iter().any(|r| r.path.ends_with("/codex/responses")));
}

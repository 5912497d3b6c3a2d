//! Byte transparency: what the simulator sends is what the client receives, and what the client
//! sends is what the simulator receives (but for the controlled edits).

use serde_json::json;
use upstream_sim::AccountSpec;

use super::events;
use crate::gateway::Gateway;

#[tokio::test]
async fn sse_bytes_reaching_the_client_are_the_upstreams_bytes() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let response =
        gateway.responses(json!({"model": "gpt-5.4", "input": "sim: events=12 reasoning=1", "stream": true})).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    for (name, _) in response.headers() {
        let name = name.as_str();
        assert!(
            !name.starts_with("x-codex-primary") && !name.starts_with("x-codex-secondary"),
            "quota header {name} leaked"
        );
        assert!(!name.starts_with("cf-") && name != "server", "infrastructure header {name} leaked");
    }
    assert!(response.headers().contains_key("x-request-id"));
    let body = response.bytes().await.expect("body");
    let text = String::from_utf8(body.to_vec()).expect("utf8");
    let parsed = events(&text);
    let id = parsed[0].1["response"]["id"].as_str().expect("response id").to_owned();
    let sent = gateway.sim.sent_bytes(&id).expect("the simulator kept what it sent");
    assert_eq!(body, sent, "the client must receive the upstream's exact bytes");
    assert_eq!(parsed.last().expect("events").0, "response.completed");
}

#[tokio::test]
async fn the_client_body_reaches_upstream_unchanged_but_for_the_controlled_edits() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let body = r#"{"zeta_unknown":{"keep":[1,2,3]},"model":"gpt-5.4","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}],"store":false,"stream":true,"tools":[{"type":"namespace","name":"x"}],"temperature":0.2}"#;
    let response = gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .bearer_auth(&gateway.key)
        .header("content-type", "application/json")
        .header("session_id", "sess-1")
        .header("originator", "evil")
        .body(body)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body");
    let received = gateway
        .sim
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.path.ends_with("/codex/responses"))
        .expect("the simulator received the call");
    // `temperature` is refused by the Codex backend and dropped; every other byte is kept, and
    // as the client is not Codex, Codex's turn fields follow its own (decision 0330).
    let expected = body.replace(r#","temperature":0.2"#, "");
    let kept = expected.strip_suffix('}').expect("an object");
    assert!(received.body.starts_with(&format!("{kept},")), "{}", received.body);
    let sent: serde_json::Value = serde_json::from_str(&received.body).expect("json");
    let added: Vec<&str> = sent.as_object().expect("object").keys().skip(6).map(String::as_str).collect();
    assert_eq!(added, ["tool_choice", "parallel_tool_calls", "include", "prompt_cache_key", "client_metadata"]);
    let header = |name: &str| received.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    assert_eq!(header("originator").as_deref(), Some("codex_cli_rs"), "client headers never override protocol headers");
    // The client's `session_id` seeds the turn's conversation id, sent in Codex's spelling.
    assert!(header("session_id").is_none());
    let session = header("session-id").expect("Codex's session header");
    assert!(session != "sess-1" && uuid::Uuid::parse_str(&session).is_ok(), "the account's value (decision 0233)");
    assert_eq!(sent["prompt_cache_key"], session.as_str());
    assert!(header("authorization").is_some_and(|v| v.starts_with("Bearer ") && !v.contains(&gateway.key)));
    assert_eq!(header("chatgpt-account-id").as_deref(), Some("acct-a"));
}

#[tokio::test]
async fn a_non_stream_client_gets_the_aggregated_response_object() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "sim: text='hello there'"})).await;
    assert_eq!(response.status(), 200);
    let value: serde_json::Value = response.json().await.expect("json");
    assert_eq!(value["object"], "response");
    assert_eq!(value["status"], "completed");
    assert_eq!(value["output"][0]["content"][0]["text"], "hello there");
    assert!(value["usage"]["input_tokens"].as_u64().is_some());
}

#[tokio::test]
async fn models_list_the_union_served_to_the_key() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let list: serde_json::Value = gateway
        .client()
        .get(format!("{}/v1/models", gateway.url))
        .bearer_auth(&gateway.key)
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(list["object"], "list");
    let ids: Vec<&str> = list["data"].as_array().expect("data").iter().filter_map(|m| m["id"].as_str()).collect();
    assert!(ids.contains(&"gpt-5.4"), "{ids:?}");
    let one = gateway
        .client()
        .get(format!("{}/v1/models/gpt-5.4", gateway.url))
        .bearer_auth(&gateway.key)
        .send()
        .await
        .expect("sent");
    assert_eq!(one.status(), 200);
    let missing = gateway
        .client()
        .get(format!("{}/v1/models/nope", gateway.url))
        .bearer_auth(&gateway.key)
        .send()
        .await
        .expect("sent");
    assert_eq!(missing.status(), 404);
}

//! Continuation for Grok (PROTOCOL H.3, decisions 0267 and 0290): a response asked for with
//! `store: true` is pinned to its account, and `previous_response_id` continues it there with
//! the upstream id put back (native); every other continuation — not stored upstream, its
//! account disabled, or xAI no longer holding it — is replayed from the transcript the gateway
//! keeps in Redis, on any eligible account, with another account's reasoning ciphertext
//! removed. An id the gateway holds nothing for (unknown, another key's) is
//! `previous_response_not_found`. A real gateway and the simulator over TLS, which stores
//! responses per account, answers 404 `not_found` for one it does not hold and refuses another
//! account's ciphertext.

use serde_json::{Value, json};
use upstream_sim::{AccountSpec, RecordedRequest};

use crate::gateway::Gateway;

fn xai_calls(gateway: &Gateway) -> Vec<RecordedRequest> {
    gateway.sim.requests().into_iter().filter(|r| r.path.ends_with("/xai/v1/responses")).collect()
}

fn body(request: &RecordedRequest) -> Value {
    serde_json::from_str(&request.body).expect("json body")
}

fn input(request: &RecordedRequest) -> Vec<Value> {
    body(request)["input"].as_array().expect("input").clone()
}

/// The text of an input item (a message's first part, or its string content).
fn text(item: &Value) -> Value {
    match &item["content"] {
        Value::String(text) => json!(text),
        content => content[0]["text"].clone(),
    }
}

async fn not_found(response: reqwest::Response) {
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.expect("json");
    assert_eq!(error["error"]["code"], json!("previous_response_not_found"), "{error}");
}

/// A 200 response's JSON.
async fn ok(response: reqwest::Response) -> Value {
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).expect("json")
}

/// The first turn's script: in `instructions`, which a continuation does not carry over.
const REASONING: &str = "sim: reasoning=1 text='first answer'";

fn continuing(previous: &str, input: &str) -> Value {
    json!({"model": "grok-4.5", "input": input, "previous_response_id": previous})
}

#[tokio::test]
async fn a_stored_grok_response_continues_on_its_account_with_its_id() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a"), AccountSpec::xai("grok-b")]).await;
    let first = gateway.responses(json!({"model": "grok-4.5", "input": "sim: text='first'", "store": true})).await;
    let first = ok(first).await;
    let id = first["id"].as_str().expect("response id").to_owned();
    let owner = xai_calls(&gateway)[0].account_id.clone().expect("owner");

    for turn in 0..3 {
        ok(gateway.responses(continuing(&id, &format!("sim: text='turn {turn}'"))).await).await;
        let calls = xai_calls(&gateway);
        let call = calls.last().expect("call");
        assert_eq!(call.account_id.as_ref(), Some(&owner), "only the owner can continue it");
        assert_eq!(body(call)["previous_response_id"], json!(id), "the upstream id goes back in");
        assert_eq!(body(call)["input"], json!(format!("sim: text='turn {turn}'")), "xAI holds the history");
    }
}

#[tokio::test]
async fn an_unstored_grok_response_is_continued_by_replaying_its_transcript() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let first =
        gateway.responses(json!({"model": "grok-4.5", "input": "first question", "instructions": REASONING})).await;
    let first = ok(first).await;
    let id = first["id"].as_str().expect("id").to_owned();
    let ciphertext = first["output"][0]["encrypted_content"].clone();
    assert!(ciphertext.is_string(), "{first}");

    let second = ok(gateway.responses(continuing(&id, "sim: text='second answer'")).await).await;
    assert_eq!(second["output"][0]["content"][0]["text"], json!("second answer"));
    let calls = xai_calls(&gateway);
    assert_eq!(calls.len(), 2, "one call per turn: nothing refused");
    let sent = input(&calls[1]);
    assert!(body(&calls[1]).get("previous_response_id").is_none(), "the id never goes up for a replay");
    assert_eq!(sent.len(), 4, "{sent:?}");
    assert_eq!(text(&sent[0]), json!("first question"));
    assert_eq!(sent[1]["type"], json!("reasoning"));
    assert_eq!(sent[1]["encrypted_content"], ciphertext, "the same account keeps its ciphertext");
    assert_eq!(text(&sent[2]), json!("first answer"));
    assert_eq!(text(&sent[3]), json!("sim: text='second answer'"));

    // A chain: the replayed turn's transcript is its whole input and its output.
    let second_id = second["id"].as_str().expect("id").to_owned();
    ok(gateway.responses(continuing(&second_id, "sim: text='third answer'")).await).await;
    let third = input(&xai_calls(&gateway)[2]);
    let texts: Vec<Value> = third.iter().filter(|i| i["type"] != "reasoning").map(text).collect();
    assert_eq!(
        texts,
        vec![
            json!("first question"),
            json!("first answer"),
            json!("sim: text='second answer'"),
            json!("second answer"),
            json!("sim: text='third answer'"),
        ]
    );
}

#[tokio::test]
async fn a_pinned_response_whose_account_is_disabled_is_replayed_on_another_without_ciphertext() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a"), AccountSpec::xai("grok-b")]).await;
    crate::data_plane::make_sticky(&gateway).await; // the first response lands on grok-a (account 1)
    let first = gateway
        .responses(json!({"model": "grok-4.5", "input": "first question", "instructions": REASONING, "store": true}))
        .await;
    let first = ok(first).await;
    let id = first["id"].as_str().expect("id").to_owned();
    assert_eq!(xai_calls(&gateway)[0].account_id.as_deref(), Some("grok-a"));

    gateway.cli(&["account", "update", "1", "--disable"], None);
    crate::data_plane::wait_for_reload(&gateway).await;
    ok(gateway.responses(continuing(&id, "sim: text='second answer'")).await).await;
    let calls = xai_calls(&gateway);
    assert_eq!(calls.len(), 2, "replayed at once, nothing refused for its ciphertext");
    assert_eq!(calls[1].account_id.as_deref(), Some("grok-b"), "another account serves it");
    let sent = input(&calls[1]);
    assert!(body(&calls[1]).get("previous_response_id").is_none(), "grok-a's id means nothing to grok-b");
    let reasoning: Vec<&Value> = sent.iter().filter(|i| i["type"] == "reasoning").collect();
    assert_eq!(reasoning.len(), 1, "{sent:?}");
    assert!(reasoning[0].get("encrypted_content").is_none(), "grok-a's ciphertext stays behind: {}", reasoning[0]);
    assert_eq!(text(&sent[sent.len() - 2]), json!("first answer"));
}

#[tokio::test]
async fn a_native_continuation_xai_no_longer_holds_is_replayed() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let stored = gateway.responses(json!({"model": "grok-4.5", "input": "sim: text='kept'", "store": true})).await;
    let stored = ok(stored).await["id"].as_str().expect("id").to_owned();
    let tokens = gateway.sim.mint_tokens("grok-a").expect("tokens");
    let deleted = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client")
        .delete(format!("{}/responses/{stored}", gateway.sim.xai_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-xai-token-auth", "xai-grok-cli")
        .header("x-grok-client-version", "0.2.120")
        .send()
        .await
        .expect("delete");
    assert_eq!(deleted.status(), 200);

    let next = ok(gateway.responses(continuing(&stored, "sim: text='again'")).await).await;
    assert_eq!(next["output"][0]["content"][0]["text"], json!("again"));
    let calls = xai_calls(&gateway);
    assert_eq!(calls.len(), 3, "the first turn, the native attempt xAI answered 404, the replay");
    assert_eq!(body(&calls[1])["previous_response_id"], json!(stored));
    assert!(body(&calls[2]).get("previous_response_id").is_none());
    let texts: Vec<Value> = input(&calls[2]).iter().map(text).collect();
    assert_eq!(texts, vec![json!("sim: text='kept'"), json!("kept"), json!("sim: text='again'")]);
}

#[tokio::test]
async fn what_the_gateway_holds_nothing_for_is_previous_response_not_found() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    not_found(gateway.responses(continuing("resp_unknown", "hi")).await).await;
    assert!(xai_calls(&gateway).is_empty(), "an unknown id is refused before anything is sent");

    // Another key's response: its transcript and its pin are not this key's.
    let other_key = gateway.cli(&["key", "create", "intruder"], None).trim().to_owned();
    crate::data_plane::wait_for_reload(&gateway).await;
    for store in [false, true] {
        let first = gateway.responses(json!({"model": "grok-4.5", "input": "sim: text='mine'", "store": store})).await;
        let id = ok(first).await["id"].as_str().expect("id").to_owned();
        let before = xai_calls(&gateway).len();
        let stolen = gateway
            .client()
            .post(format!("{}/v1/responses", gateway.url))
            .bearer_auth(&other_key)
            .json(&continuing(&id, "what did they say?"))
            .send()
            .await
            .expect("request");
        not_found(stolen).await;
        assert_eq!(xai_calls(&gateway).len(), before, "store {store}: nothing sent for another key");
        ok(gateway.responses(continuing(&id, "sim: text='still mine'")).await).await;
    }
}

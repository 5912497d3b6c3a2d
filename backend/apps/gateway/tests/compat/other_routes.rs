//! `/v1/responses/review`, `/v1/images/*` and `/v1/zed/edit-predictions`.

use serde_json::{Value, json};
use sqlx::Row;
use upstream_sim::AccountSpec;

use crate::gateway::{Gateway, terminal_rows};

async fn post(gateway: &Gateway, path: &str, body: Value) -> (u16, Value) {
    let response = gateway
        .client()
        .post(format!("{}{path}", gateway.url))
        .bearer_auth(&gateway.key)
        .json(&body)
        .send()
        .await
        .expect("sent");
    let status = response.status().as_u16();
    (status, response.json().await.expect("json"))
}

#[tokio::test]
async fn review_runs_a_responses_turn_marked_as_the_review_sub_agent() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let (status, body) =
        post(&gateway, "/v1/responses/review", json!({"model": "gpt-5.4", "input": "sim: text='lgtm'"})).await;
    assert_eq!(status, 200);
    assert_eq!(body["output"][0]["content"][0]["text"], "lgtm");
    let sent = gateway.sim.requests().into_iter().rev().find(|r| r.path.ends_with("/codex/responses")).expect("call");
    let subagent = sent.headers.iter().find(|(n, _)| n == "x-openai-subagent").map(|(_, v)| v.as_str());
    assert_eq!(subagent, Some("review"));
    let rows = terminal_rows(&gateway.pool().await, 1).await;
    assert_eq!(rows[0].get::<String, _>("operation"), "responses.review");
}

#[tokio::test]
async fn images_answer_a_clear_error_per_provider_of_the_pool() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    for path in ["/v1/images/generations", "/v1/images/edits"] {
        let (status, body) = post(&gateway, path, json!({"model": "gpt-image-1", "prompt": "a cat"})).await;
        assert_eq!(status, 400, "{path}");
        assert_eq!(body["error"]["code"], "operation_not_supported");
        let message = body["error"]["message"].as_str().expect("message");
        assert!(message.contains("openai:") && message.contains("image_generation"), "{message}");
        assert!(!message.contains("xai:"), "only providers of the pool are named: {message}");
    }
    let response = gateway
        .client()
        .post(format!("{}/v1/images/generations", gateway.url))
        .json(&json!({"prompt": "a cat"}))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 401, "the key is checked before anything about the pool is said");
}

#[tokio::test]
async fn a_zed_edit_prediction_is_a_text_completion_with_local_stop_and_budget() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let prompt = "<|fim_prefix|>fn main() {\n    let x = <|fim_suffix|>;\n}<|fim_middle|>";
    let (status, body) = post(
        &gateway,
        "/v1/zed/edit-predictions",
        json!({"model": "gpt-5.4", "prompt": prompt, "max_tokens": 64, "temperature": 0.1}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["object"], "text_completion");
    assert_eq!(body["choices"][0]["text"], "Hello from upstream-sim.");
    let sent = gateway.sim.requests().into_iter().rev().find(|r| r.path.ends_with("/codex/responses")).expect("call");
    let sent: Value = serde_json::from_str(&sent.body).expect("json");
    assert_eq!(sent["input"][1]["content"][0]["text"], "fn main() {\n    let x = ");
    assert_eq!(sent["input"][1]["content"][1]["text"], ";\n}");
    assert_eq!(sent["reasoning"]["effort"], "low");
    assert!(sent.get("tools").is_none() && sent.get("max_tokens").is_none() && sent.get("stop").is_none());
    assert!(sent.get("temperature").is_none());

    // The budget counts code points: 5 of "Hello from upstream-sim.".
    let (_, body) =
        post(&gateway, "/v1/zed/edit-predictions", json!({"model": "gpt-5.4", "prompt": prompt, "max_tokens": 5}))
            .await;
    assert_eq!(body["choices"][0]["text"], "Hello");
    assert_eq!(body["choices"][0]["finish_reason"], "length");
    let (_, body) = post(
        &gateway,
        "/v1/zed/edit-predictions",
        json!({"model": "gpt-5.4", "prompt": prompt, "max_tokens": 64, "stop": " from"}),
    )
    .await;
    assert_eq!(body["choices"][0]["text"], "Hello");
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
    let rows = terminal_rows(&gateway.pool().await, 3).await;
    assert!(rows.iter().all(|r| r.get::<String, _>("operation") == "zed.edit_predictions"));
}

#[tokio::test]
async fn a_zed_prompt_without_one_ordered_fim_sequence_is_refused() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    for (prompt, max_tokens, param) in [
        ("no markers", 10, "prompt"),
        ("<|fim_suffix|>a<|fim_prefix|>b<|fim_middle|>", 10, "prompt"),
        ("<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|><|fim_middle|>", 10, "prompt"),
        ("<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>", 0, "max_tokens"),
        ("<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>", 4097, "max_tokens"),
    ] {
        let (status, body) = post(
            &gateway,
            "/v1/zed/edit-predictions",
            json!({"model": "gpt-5.4", "prompt": prompt, "max_tokens": max_tokens}),
        )
        .await;
        assert_eq!(status, 400, "{prompt}");
        assert_eq!(body["error"]["param"], param, "{prompt}");
    }
    assert!(!gateway.sim.requests().iter().any(|r| r.path.ends_with("/codex/responses")));
}

#[tokio::test]
async fn compact_passes_through_to_the_backends_unary_compaction() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let input =
        json!([{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "long history"}]}]);
    for path in ["/v1/responses/compact", "/backend-api/codex/responses/compact"] {
        let (status, body) = post(
            &gateway,
            path,
            json!({"model": "gpt-5.4", "input": input, "instructions": "compact it", "store": false}),
        )
        .await;
        assert_eq!(status, 200, "{path}: {body}");
        let output = body["output"].as_array().unwrap_or_else(|| panic!("{path}: {body}"));
        assert_eq!(output.last().expect("items")["type"], "compaction", "{path}: {body}");
        assert!(body.get("object").is_none() && body.get("status").is_none(), "{path}: the backend's own object");
        let sent = gateway.sim.requests().into_iter().rev().find(|r| r.path.ends_with("/codex/responses/compact"));
        let sent: Value = serde_json::from_str(&sent.expect("compaction call").body).expect("json");
        assert!(sent.get("stream").is_none() && sent.get("store").is_none(), "{path}: {sent}");
    }
    let (status, body) =
        post(&gateway, "/v1/responses/compact", json!({"model": "gpt-5.4", "input": input, "stream": true})).await;
    assert_eq!((status, body["error"]["param"].as_str()), (400, Some("stream")));
    let rows = terminal_rows(&gateway.pool().await, 2).await;
    assert!(rows.iter().all(|r| r.get::<String, _>("operation") == "responses.compact"));
}

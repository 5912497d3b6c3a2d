//! Grok compaction (PROTOCOL H.1, H.6; decision 0269): `/v1/responses/compact` for a Grok model
//! goes to the public API host (`providers.xai.api_url`, the simulator's `api.x.ai` over TLS),
//! never to the Grok CLI proxy, with the body edited as the Grok CLI does.

use serde_json::{Value, json};
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

#[tokio::test]
async fn grok_compaction_goes_to_the_api_host_and_answers_its_object() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let input = json!([
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "long history"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "an answer"}]},
        {"type": "compaction_trigger"},
    ]);
    let body = json!({"model": "grok", "input": input, "tools": [{"type": "function", "name": "f"}],
        "temperature": 0.3, "store": false, "max_output_tokens": 100});
    let response = gateway
        .client()
        .post(format!("{}/v1/responses/compact", gateway.url))
        .bearer_auth(&gateway.key)
        .json(&body)
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.expect("json");
    let output = answer["output"].as_array().expect("output");
    let compaction = output.last().expect("items");
    assert_eq!(compaction["type"], json!("compaction"), "{answer}");
    assert!(compaction["id"].as_str().is_some_and(|id| id.starts_with("cmp_")));
    assert!(answer.get("object").is_none() && answer.get("status").is_none(), "the upstream's own object");

    let requests = gateway.sim.requests();
    let calls: Vec<_> = requests.iter().filter(|r| r.path.ends_with("/responses/compact")).collect();
    assert_eq!(calls.len(), 1);
    assert!(calls[0].path.ends_with("/xai-api/v1/responses/compact"), "the API host: {}", calls[0].path);
    assert!(!requests.iter().any(|r| r.path.ends_with("/xai/v1/responses")), "nothing on the CLI proxy");
    let sent: Value = serde_json::from_str(&calls[0].body).expect("json");
    assert_eq!(sent["model"], json!("grok-4.5"));
    for field in ["stream", "store", "tools", "temperature", "max_output_tokens"] {
        assert!(sent.get(field).is_none(), "{field} removed: {sent}");
    }
    assert_eq!(sent["input"].as_array().map(Vec::len), Some(2), "the trigger item removed: {sent}");
    let rows = crate::gateway::terminal_rows(&gateway.pool().await, 1).await;
    assert_eq!(sqlx::Row::get::<String, _>(&rows[0], "operation"), "responses.compact");
    assert_eq!(sqlx::Row::get::<String, _>(&rows[0], "status"), "completed");
}

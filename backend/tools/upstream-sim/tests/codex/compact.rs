use serde_json::{Value, json};

use crate::support::{client, sim_with_openai};

#[tokio::test]
async fn compact_returns_user_messages_and_a_compaction_item() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let body = json!({
        "model": "gpt-5.4",
        "instructions": "x",
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first"}]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "reply"}]},
        ],
        "tools": [],
        "parallel_tool_calls": true,
    });
    let response = client()
        .post(format!("{}/responses/compact", sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .json(&body)
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    let output = body["output"].as_array().expect("output");
    assert_eq!(output.len(), 2);
    assert_eq!(output[0]["role"], "user");
    assert_eq!(output[1]["type"], "compaction");
    assert!(output[1]["encrypted_content"].as_str().is_some());
    sim.shutdown().await;
}

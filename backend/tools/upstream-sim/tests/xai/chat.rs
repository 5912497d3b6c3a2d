use serde_json::{Value, json};

use crate::support::{parse_sse, sim_with_xai, xai_request};

#[tokio::test]
async fn chat_completions_stream_and_non_stream() {
    let (sim, tokens) = sim_with_xai("supergrok").await;
    let body = json!({
        "model": "grok-4.5",
        "messages": [{"role": "user", "content": "sim: text='chat reply'"}],
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    let text = xai_request(&sim, &tokens, "/chat/completions")
        .json(&body)
        .send()
        .await
        .expect("request")
        .text()
        .await
        .expect("body");
    assert!(text.ends_with("data: [DONE]\n\n"));
    assert!(!text.contains("event:"));
    let chunks = parse_sse(&text);
    let joined: String = chunks.iter().filter_map(|(_, c)| c["choices"][0]["delta"]["content"].as_str()).collect();
    assert_eq!(joined, "chat reply");
    assert_eq!(chunks[chunks.len() - 2].1["usage"]["total_tokens"].as_u64().map(|t| t > 0), Some(true));

    let tool = json!({
        "model": "grok-4.5",
        "messages": [{"role": "user", "content": "sim: tool=lookup args='{\"q\":1}'"}],
    });
    let completion: Value = xai_request(&sim, &tokens, "/chat/completions")
        .json(&tool)
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(completion["object"], "chat.completion");
    assert_eq!(completion["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(completion["choices"][0]["message"]["tool_calls"][0]["function"]["name"], "lookup");
    sim.shutdown().await;
}

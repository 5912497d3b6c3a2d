//! Codex-style tools and in-band compaction with a Grok model (PROTOCOL H.3, H.4, H.6): a real
//! gateway and the simulator's Grok CLI proxy over TLS, which refuses `custom` and `namespace`
//! tools and the items it has no type for, as a real backend does.

use serde_json::{Value, json};
use upstream_sim::AccountSpec;

use super::events;
use crate::gateway::Gateway;

fn xai_calls(gateway: &Gateway) -> Vec<upstream_sim::RecordedRequest> {
    gateway.sim.requests().into_iter().filter(|r| r.path.ends_with("/xai/v1/responses")).collect()
}

fn sent(call: &upstream_sim::RecordedRequest) -> Value {
    serde_json::from_str(&call.body).expect("json body")
}

const PATCH: &str = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch";

fn codex_tools() -> Value {
    json!([
        {"type": "function", "name": "exec_command", "description": "Run a command.", "strict": false,
            "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}},
        {"type": "custom", "name": "apply_patch", "description": "Edit files with a patch.",
            "format": {"type": "grammar", "syntax": "lark", "definition": "start: begin_patch hunk+ end_patch"}},
    ])
}

fn user(text: &str) -> Value {
    json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
}

#[tokio::test]
async fn a_custom_tool_turn_streams_a_custom_tool_call_and_its_output_goes_back_as_a_function_output() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let args = json!({"patch": PATCH}).to_string();
    let ask = user(&format!("sim: tool=apply_patch args='{args}' final='patched'"));
    let response = gateway
        .responses(json!({"model": "grok-4.5", "stream": true, "tools": codex_tools(), "input": [ask.clone()]}))
        .await;
    assert_eq!(response.status(), 200);
    let frames = events(&response.text().await.expect("body"));
    let names: Vec<&str> = frames.iter().map(|(n, _)| n.as_str()).collect();
    for (index, (name, data)) in frames.iter().enumerate() {
        assert_eq!(data["type"], json!(name));
        assert_eq!(data["sequence_number"], json!(index), "contiguous: {names:?}");
    }
    assert!(!names.contains(&"response.function_call_arguments.delta"), "{names:?}");
    let position = |name: &str| names.iter().position(|n| *n == name).unwrap_or_else(|| panic!("{name}: {names:?}"));
    assert!(position("response.custom_tool_call_input.delta") < position("response.custom_tool_call_input.done"));
    let (_, added) = frames.iter().find(|(n, _)| n == "response.output_item.added").expect("added");
    assert_eq!(added["item"]["type"], json!("custom_tool_call"));
    let (_, done) =
        frames.iter().find(|(n, d)| n == "response.output_item.done" && d["item"]["type"] != "message").expect("done");
    let call = done["item"].clone();
    assert_eq!(call["type"], json!("custom_tool_call"), "{call}");
    assert_eq!(call["name"], json!("apply_patch"));
    assert_eq!(call["input"], json!(PATCH), "the patch itself, not JSON");
    assert_eq!(call["id"], added["item"]["id"], "one item id throughout");
    let (_, input_done) = frames.iter().find(|(n, _)| n == "response.custom_tool_call_input.done").expect("input");
    assert_eq!(input_done["input"], json!(PATCH));
    assert_eq!(input_done["item_id"], call["id"]);
    let (_, completed) = frames.last().expect("terminal");
    assert_eq!(completed["response"]["tools"], codex_tools(), "the client's tools in the response object");

    let first = sent(&xai_calls(&gateway)[0]);
    let tool = &first["tools"][1];
    assert_eq!(tool["type"], json!("function"), "a custom tool goes up as a function: {first}");
    assert_eq!(tool["name"], json!("apply_patch"));
    assert_eq!(tool["parameters"]["required"], json!(["patch"]));
    assert!(tool["description"].as_str().expect("description").contains("begin_patch hunk+"));

    // Codex runs the patch and sends the call and its output back in their custom shapes.
    let output = json!({"type": "custom_tool_call_output", "call_id": call["call_id"], "output": "Done!"});
    let second = gateway
        .responses(json!({"model": "grok-4.5", "tools": codex_tools(), "input": [ask, call.clone(), output]}))
        .await;
    assert_eq!(second.status(), 200, "the simulator refuses custom items: they were rewritten");
    let second: Value = second.json().await.expect("json");
    assert_eq!(second["output"][0]["content"][0]["text"], json!("patched"));
    let history = sent(&xai_calls(&gateway)[1]);
    let items = history["input"].as_array().expect("input");
    assert_eq!(items[1]["type"], json!("function_call"));
    assert_eq!(items[1]["arguments"], json!(args));
    assert_eq!(items[2], json!({"type": "function_call_output", "call_id": call["call_id"], "output": "Done!"}));
}

#[tokio::test]
async fn a_namespaced_tool_call_comes_back_with_its_name_and_namespace() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let tools = json!([{"type": "namespace", "name": "mcp__docs", "description": "The docs MCP server",
        "tools": [{"type": "function", "name": "search", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]}]);
    let ask = user("sim: tool=mcp__docs__search args='{\"q\":\"grok\"}'");
    let response = gateway.responses(json!({"model": "grok-4.5", "tools": tools, "input": [ask.clone()]})).await;
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.expect("json");
    let call = answer["output"].as_array().expect("output").iter().find(|i| i["type"] == "function_call").cloned();
    let call = call.expect("a function call");
    assert_eq!(call["name"], json!("search"), "{answer}");
    assert_eq!(call["namespace"], json!("mcp__docs"));
    assert_eq!(call["arguments"], json!("{\"q\":\"grok\"}"));
    assert_eq!(answer["tools"], tools);
    let first = sent(&xai_calls(&gateway)[0]);
    assert_eq!(first["tools"][0]["name"], json!("mcp__docs__search"), "flattened: {first}");
    assert_eq!(first["tools"][0]["type"], json!("function"));

    let output = json!({"type": "function_call_output", "call_id": call["call_id"], "output": "3 pages"});
    let second = gateway.responses(json!({"model": "grok-4.5", "tools": tools, "input": [ask, call, output]})).await;
    assert_eq!(second.status(), 200, "a namespaced call in the history goes up flattened");
    let history = sent(&xai_calls(&gateway)[1]);
    assert_eq!(history["input"][1]["name"], json!("mcp__docs__search"));
    assert!(history["input"][1].get("namespace").is_none());
}

#[tokio::test]
async fn a_trailing_compaction_trigger_compacts_in_band_and_the_next_turn_carries_the_summary() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let history = json!([
        user("sim: reasoning=1 text='<summary>1. Goal: ship the gateway</summary>'"),
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "working on it"}]},
        {"type": "compaction_trigger"},
    ]);
    let body = json!({"model": "grok-4.5", "stream": true, "tools": codex_tools(), "input": history,
        "prompt_cache_key": "conversation-1", "tool_choice": "auto"});
    let response = gateway.responses(body).await;
    assert_eq!(response.status(), 200);
    let frames = events(&response.text().await.expect("body"));
    let names: Vec<&str> = frames.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["response.created", "response.output_item.done", "response.completed"]);
    for (index, (_, data)) in frames.iter().enumerate() {
        assert_eq!(data["sequence_number"], json!(index));
    }
    let item = frames[1].1["item"].clone();
    assert_eq!(item["type"], json!("compaction"));
    assert_eq!(item["status"], json!("completed"));
    assert!(item["id"].as_str().is_some_and(|id| id.starts_with("cmp_")), "{item}");
    assert_eq!(item["summary"], json!([{"type": "summary_text", "text": "1. Goal: ship the gateway"}]));
    let ciphertext = item["encrypted_content"].as_str().expect("the reasoning ciphertext").to_owned();
    let usage = &frames[2].1["response"]["usage"];
    assert!(usage["input_tokens"].as_u64().is_some_and(|t| t > 0), "usage copied: {usage}");

    let calls = xai_calls(&gateway);
    assert_eq!(calls.len(), 1);
    let compaction = sent(&calls[0]);
    assert_eq!(compaction["store"], json!(false));
    assert_eq!(compaction["include"], json!(["reasoning.encrypted_content"]));
    assert!(compaction.get("prompt_cache_key").is_none(), "{compaction}");
    assert!(calls[0].header("x-grok-conv-id").is_none(), "no session with the compaction call");
    assert_eq!(compaction["tool_choice"], json!("auto"));
    assert_eq!(compaction["tools"][1]["type"], json!("function"));
    let input = compaction["input"].as_array().expect("input");
    assert_eq!(input.len(), 3, "the history and the prompt, no trigger: {input:?}");
    assert!(input[2]["content"][0]["text"].as_str().expect("prompt").contains("Do NOT call tools"));

    let next = json!({"model": "grok-4.5", "input": [item, user("sim: text='continuing'")], "prompt_cache_key": "conversation-1"});
    let response = gateway.responses(next).await;
    assert_eq!(response.status(), 200, "the simulator decrypts the compaction's ciphertext");
    let answer: Value = response.json().await.expect("json");
    assert_eq!(answer["output"][0]["content"][0]["text"], json!("continuing"));
    let later = sent(&xai_calls(&gateway)[1]);
    let input = later["input"].as_array().expect("input");
    assert_eq!(input[0], json!({"type": "reasoning", "summary": [], "encrypted_content": ciphertext}));
    assert_eq!(
        input[1]["content"][0]["text"],
        json!("<conversation_summary>\n1. Goal: ship the gateway\n</conversation_summary>")
    );
    let rows = crate::gateway::terminal_rows(&gateway.pool().await, 2).await;
    assert!(rows.iter().all(|r| sqlx::Row::get::<String, _>(r, "status") == "completed"));
}

#[tokio::test]
async fn a_compaction_trigger_before_the_last_item_is_the_clients_error() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let input = json!([{"type": "compaction_trigger"}, user("hi")]);
    let response = gateway.responses(json!({"model": "grok-4.5", "input": input})).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.expect("json");
    assert_eq!(error["error"]["type"], json!("invalid_request_error"), "{error}");
    assert!(error["error"]["message"].as_str().is_some_and(|m| m.contains("compaction_trigger")), "{error}");
    assert!(xai_calls(&gateway).is_empty(), "nothing sent");
    let next = gateway.responses(json!({"model": "grok-4.5", "input": "hi"})).await;
    assert_eq!(next.status(), 200, "the account was not penalised");
}

#[tokio::test]
async fn a_compaction_answer_without_reasoning_ciphertext_is_an_upstream_error() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let history = json!([user("sim: text='<summary>no reasoning here</summary>'"), {"type": "compaction_trigger"}]);
    let response = gateway.responses(json!({"model": "grok-4.5", "input": history})).await;
    assert_eq!(response.status(), 502, "{}", response.text().await.unwrap_or_default());
    assert_eq!(xai_calls(&gateway).len(), 1);
    let rows = crate::gateway::terminal_rows(&gateway.pool().await, 1).await;
    assert_eq!(sqlx::Row::get::<String, _>(&rows[0], "status"), "failed");
}

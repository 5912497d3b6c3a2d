//! The tool rewrites of PROTOCOL H.3 "Tools" and "Input items", table-driven: what the client
//! declares → what the Grok CLI proxy gets.

use provider_xai::request::prepare;
use provider_xai::tools::{ClientTool, MAX_NAME};
use serde_json::{Value, json};

fn prepared(body: Value) -> (Value, provider_xai::tools::ToolMap) {
    let prepared = prepare(&serde_json::to_vec(&body).expect("json"), "grok-4.5", "key-1").expect("prepared");
    (serde_json::from_slice(&prepared.body).expect("json"), prepared.tools)
}

fn upstream_tools(tools: Value, choice: Option<Value>) -> (Value, Option<Value>) {
    let mut body = json!({"input": "hi", "tools": tools});
    if let Some(choice) = choice {
        body["tool_choice"] = choice;
    }
    let (body, _) = prepared(body);
    (body.get("tools").cloned().unwrap_or(Value::Null), body.get("tool_choice").cloned())
}

fn object_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

fn custom_function(name: &str, key: &str, description: &str) -> Value {
    json!({"type": "function", "name": name, "description": description, "parameters": {
        "type": "object", "additionalProperties": false, "required": [key],
        "properties": {key: {"type": "string", "description": format!("The raw free-form input of `{name}`.")}}}})
}

/// (case, client tools, client choice, upstream tools, upstream choice)
type Case = (&'static str, Value, Option<Value>, Value, Option<Value>);

#[test]
fn tool_declarations_are_rewritten_for_the_proxy() {
    let namespace = json!({"type": "namespace", "name": "docs", "description": "Docs server", "tools": [
        {"type": "function", "name": "search", "description": "Search", "strict": false,
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}},
        {"type": "function", "name": "fetch", "parameters": null, "defer_loading": true}]});
    let cases: Vec<Case> = vec![
        (
            "function: null parameters, defer_loading, nullable root",
            json!([{"type": "function", "name": "f", "parameters": null, "defer_loading": true},
                {"type": "function", "name": "g", "parameters": {"type": ["object", "null"], "properties": {}}}]),
            Some(json!({"type": "function", "name": "g"})),
            json!([{"type": "function", "name": "f", "parameters": object_schema()},
                {"type": "function", "name": "g", "parameters": {"type": "object", "properties": {}}}]),
            Some(json!({"type": "function", "name": "g"})),
        ),
        (
            "namespace children flattened; a choice of a child follows the rename",
            json!([namespace]),
            Some(json!({"type": "function", "name": "fetch", "namespace": "docs"})),
            json!([{"type": "function", "name": "docs__search", "description": "Search", "strict": false,
                    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}},
                {"type": "function", "name": "docs__fetch", "parameters": object_schema()}]),
            Some(json!({"type": "function", "name": "docs__fetch"})),
        ),
        (
            "custom: one required string `input`; a root apply_patch takes `patch`",
            json!([{"type": "custom", "name": "note", "description": "Take a note."},
                {"type": "custom", "name": "apply_patch", "description": "Edit files."}]),
            Some(json!({"type": "custom", "name": "apply_patch"})),
            json!([
                custom_function("note", "input", "Take a note."),
                custom_function("apply_patch", "patch", "Edit files.")
            ]),
            Some(json!({"type": "function", "name": "apply_patch"})),
        ),
        (
            "web_search variants, local_shell, passed tools",
            json!([{"type": "web_search_preview", "filters": {"allowed_domains": ["x.ai"]}}, {"type": "local_shell"},
                {"type": "x_search"}, {"type": "mcp", "server_label": "s"}]),
            Some(json!({"type": "local_shell"})),
            json!([{"type": "web_search", "filters": {"allowed_domains": ["x.ai"]}},
                {"type": "shell", "environment": {"type": "local"}}, {"type": "x_search"},
                {"type": "mcp", "server_label": "s"}]),
            Some(json!({"type": "shell"})),
        ),
        (
            "computer_use_preview, image_generation and unknown tools dropped with their choice",
            json!([{"type": "function", "name": "f"}, {"type": "computer_use_preview"}, {"type": "image_generation"},
                {"type": "hologram"}]),
            Some(json!({"type": "image_generation"})),
            json!([{"type": "function", "name": "f", "parameters": object_schema()}]),
            None,
        ),
        (
            "allowed_tools choices removed; string choices kept",
            json!([{"type": "function", "name": "f"}]),
            Some(json!({"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "f"}]})),
            json!([{"type": "function", "name": "f", "parameters": object_schema()}]),
            None,
        ),
        (
            "nothing left: no tools, no choice",
            json!([{"type": "image_generation"}]),
            Some(json!("required")),
            Value::Null,
            None,
        ),
    ];
    for (case, tools, choice, expected_tools, expected_choice) in cases {
        let (tools, choice) = upstream_tools(tools, choice);
        assert_eq!(tools, expected_tools, "{case}");
        assert_eq!(choice, expected_choice, "{case}");
    }
    let (_, choice) = upstream_tools(json!([{"type": "function", "name": "f"}]), Some(json!("required")));
    assert_eq!(choice, Some(json!("required")));
}

#[test]
fn a_custom_grammar_goes_into_the_description() {
    let tools = json!([{"type": "custom", "name": "apply_patch", "description": "Edit files.",
        "format": {"type": "grammar", "syntax": "lark", "definition": "start: \"*** Begin Patch\""}}]);
    let (tools, _) = upstream_tools(tools, None);
    let description = tools[0]["description"].as_str().expect("description");
    assert!(description.starts_with("Edit files."), "{description}");
    assert!(description.contains("lark grammar") && description.contains("*** Begin Patch"), "{description}");
}

#[test]
fn names_are_unique_and_at_most_128_characters() {
    let long = "n".repeat(120);
    let tools = json!([
        {"type": "function", "name": "docs__search"},
        {"type": "namespace", "name": "docs", "tools": [{"type": "function", "name": "search"}]},
        {"type": "namespace", "name": long, "tools": [{"type": "function", "name": "lookup_everything"}]},
        {"type": "custom", "name": "docs__search"},
    ]);
    let (body, map) = prepared(json!({"input": "hi", "tools": tools}));
    let names: Vec<&str> = body["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names.len(), 4);
    assert_eq!(names[0], "docs__search", "a plain function keeps its name");
    let unique: std::collections::HashSet<&&str> = names.iter().collect();
    assert_eq!(unique.len(), 4, "{names:?}");
    assert!(names.iter().all(|n| n.len() <= MAX_NAME), "{names:?}");
    assert!(names[1].starts_with("docs__search_"), "hashed on collision: {}", names[1]);
    assert_eq!(
        map.client_tool(names[2]),
        Some(&ClientTool::Namespaced { namespace: long.clone(), name: "lookup_everything".into() })
    );
    assert_eq!(map.client_tool(names[3]), Some(&ClientTool::Custom { name: "docs__search".into(), key: "input" }));
}

#[test]
fn history_items_are_rewritten_to_function_forms() {
    let input = json!([
        {"type": "message", "role": "user", "content": "edit it"},
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "apply_patch", "input": "*** Begin Patch", "status": "completed"},
        {"type": "custom_tool_call_output", "call_id": "call_1", "output": "Done!"},
        {"type": "function_call", "call_id": "call_2", "name": "search", "namespace": "docs", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_2", "output": "found"},
        {"type": "apply_patch_call", "call_id": "call_3", "status": "completed",
            "operation": {"type": "update_file", "path": "a.rs", "diff": "-a\n+b"}},
        {"type": "apply_patch_call_output", "call_id": "call_3", "output": "patched"},
        {"type": "local_shell_call", "call_id": "call_4", "status": "completed",
            "action": {"type": "exec", "command": ["ls"]}},
        {"type": "local_shell_call_output", "id": "call_4", "output": "a.rs"},
    ]);
    let tools = json!([{"type": "custom", "name": "apply_patch"},
        {"type": "namespace", "name": "docs", "tools": [{"type": "function", "name": "search"}]}]);
    let (body, _) = prepared(json!({"input": input, "tools": tools}));
    let sent = body["input"].as_array().expect("input");
    let expected = json!([
        {"type": "message", "role": "user", "content": "edit it"},
        {"type": "function_call", "call_id": "call_1", "name": "apply_patch", "arguments": {"patch": "*** Begin Patch"}, "status": "completed"},
        {"type": "function_call_output", "call_id": "call_1", "output": "Done!"},
        {"type": "function_call", "call_id": "call_2", "name": "docs__search", "arguments": {}},
        {"type": "function_call_output", "call_id": "call_2", "output": "found"},
        {"type": "function_call", "call_id": "call_3", "name": "xai_proxy_apply_patch", "status": "completed",
            "arguments": {"operation": {"type": "update_file", "path": "a.rs", "diff": "-a\n+b"}}},
        {"type": "function_call_output", "call_id": "call_3", "output": "patched"},
        {"type": "function_call", "call_id": "call_4", "name": "local_shell", "status": "completed",
            "arguments": {"type": "exec", "command": ["ls"]}},
        {"type": "function_call_output", "call_id": "call_4", "output": "a.rs"},
    ]);
    assert_eq!(parsed_arguments(sent), expected);
    // Once rewritten, a body is left as it is.
    let again = provider_xai::request::rewrite_history(serde_json::to_vec(&body).expect("json"), &Default::default());
    let again: Value = serde_json::from_slice(&again).expect("json");
    assert_eq!(parsed_arguments(again["input"].as_array().expect("input")), expected);
}

/// The items with each `arguments` string parsed (key order is not the point).
fn parsed_arguments(items: &[Value]) -> Value {
    let items = items.iter().map(|item| {
        let mut item = item.clone();
        if let Some(arguments) = item.get("arguments").and_then(Value::as_str) {
            item["arguments"] = serde_json::from_str(arguments).expect("arguments are JSON");
        }
        item
    });
    Value::Array(items.collect())
}

#[test]
fn a_compaction_item_becomes_reasoning_and_a_summary_message() {
    let ciphertext = provider_xai_test_ciphertext();
    let input = json!([
        {"type": "compaction", "id": "cmp_1", "encrypted_content": ciphertext,
            "summary": [{"type": "summary_text", "text": "1. Goal: ship it"}]},
        {"type": "message", "role": "user", "content": "go on"},
    ]);
    let (body, _) = prepared(json!({"input": input}));
    let sent = body["input"].as_array().expect("input");
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert_eq!(sent[0], json!({"type": "reasoning", "summary": [], "encrypted_content": ciphertext}));
    assert_eq!(sent[1]["role"], json!("user"));
    assert_eq!(
        sent[1]["content"][0]["text"],
        json!("<conversation_summary>\n1. Goal: ship it\n</conversation_summary>")
    );
    assert_eq!(sent[2]["content"], json!("go on"));
}

/// 96 high-entropy bytes (xorshift), standard base64: a ciphertext that can be xAI's.
pub fn provider_xai_test_ciphertext() -> String {
    use base64::Engine;
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let bytes: Vec<u8> = (0..96)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    base64::engine::general_purpose::STANDARD_NO_PAD.encode(bytes)
}

#[test]
fn a_trigger_anywhere_but_last_is_refused_and_a_trailing_one_is_taken() {
    let body = json!({"input": [{"type": "compaction_trigger"}, {"type": "message", "role": "user", "content": "hi"}]});
    let error = prepare(&serde_json::to_vec(&body).expect("json"), "grok-4.5", "k").expect_err("refused");
    assert_eq!(error.field, "input");
    let body = json!({"input": [{"type": "message", "role": "user", "content": "hi"}, {"type": "compaction_trigger"}]});
    let prepared = prepare(&serde_json::to_vec(&body).expect("json"), "grok-4.5", "k").expect("prepared");
    assert!(prepared.compaction);
    let sent: Value = serde_json::from_slice(&prepared.body).expect("json");
    assert_eq!(sent["input"].as_array().map(Vec::len), Some(1), "the trigger does not go up: {sent}");
}

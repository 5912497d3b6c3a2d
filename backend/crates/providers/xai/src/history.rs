//! History items the Grok CLI proxy does not know, in the forms it does (PROTOCOL H.3 "Input
//! items", H.6; decisions 0294, 0296):
//!
//! - `custom_tool_call` → `function_call` with its input as the one string argument of the
//!   rewritten tool (`tools.rs`); `custom_tool_call_output` → `function_call_output`;
//! - `apply_patch_call` → `function_call` `xai_proxy_apply_patch` with `{operation}`;
//!   `local_shell_call` → `function_call` `local_shell` with its `action`; their outputs →
//!   `function_call_output`;
//! - a namespaced `function_call` → the flattened name, `namespace` removed;
//! - a `compaction` item → a reasoning item with its ciphertext, then a user message
//!   `<conversation_summary>…</conversation_summary>` with its summary text.
//!
//! Rewriting is idempotent: a body rewritten once is left as it is.

use serde_json::{Map, Value, json};

use crate::tools::ToolMap;

/// The function name structured `apply_patch` calls travel under.
pub const APPLY_PATCH_FUNCTION: &str = "xai_proxy_apply_patch";
/// The function name legacy `local_shell` calls travel under.
pub const LOCAL_SHELL_FUNCTION: &str = "local_shell";

fn text<'a>(item: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    item.get(key).and_then(Value::as_str)
}

/// Rewrites `items` in place.
pub fn rewrite(items: &mut Vec<Value>, tools: &ToolMap) {
    let mut out = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        let Value::Object(object) = item else {
            out.push(item);
            continue;
        };
        match text(&object, "type").unwrap_or("message") {
            "compaction" => out.extend(compaction(&object)),
            _ => out.push(call(object, tools)),
        }
    }
    *items = out;
}

fn call(mut item: Map<String, Value>, tools: &ToolMap) -> Value {
    let call_id = item.get("call_id").cloned().or_else(|| item.get("id").cloned()).unwrap_or(Value::Null);
    let status = item.get("status").cloned();
    let function_call = |name: String, arguments: Value| {
        let mut call =
            json!({"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments.to_string()});
        if let Some(status) = &status {
            call["status"] = status.clone();
        }
        call
    };
    let output = |output: Option<&Value>| json!({"type": "function_call_output", "call_id": call_id, "output": output.cloned().unwrap_or(json!(""))});
    match text(&item, "type").unwrap_or("message") {
        "function_call" => {
            if let Some(Value::String(namespace)) = item.remove("namespace") {
                let name = text(&item, "name").unwrap_or_default().to_owned();
                item.insert("name".to_owned(), json!(tools.namespaced_upstream(&namespace, &name)));
            }
            Value::Object(item)
        }
        "custom_tool_call" => {
            let (name, key) = tools.custom_upstream(text(&item, "name").unwrap_or_default());
            let input = item.get("input").cloned().unwrap_or(json!(""));
            function_call(name, json!({key: input}))
        }
        "apply_patch_call" => {
            function_call(APPLY_PATCH_FUNCTION.to_owned(), json!({"operation": item.get("operation").cloned()}))
        }
        "local_shell_call" => {
            function_call(LOCAL_SHELL_FUNCTION.to_owned(), item.get("action").cloned().unwrap_or(json!({})))
        }
        "custom_tool_call_output" | "apply_patch_call_output" | "local_shell_call_output" => output(item.get("output")),
        _ => Value::Object(item),
    }
}

/// A `compaction` item as a reasoning item (its ciphertext) and the summary as a user message.
fn compaction(item: &Map<String, Value>) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(ciphertext) = text(item, "encrypted_content") {
        out.push(json!({"type": "reasoning", "summary": [], "encrypted_content": ciphertext}));
    }
    let summary: Vec<&str> = item
        .get("summary")
        .and_then(Value::as_array)
        .map(|parts| parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    let summary = summary.join("\n").trim().to_owned();
    if !summary.is_empty() {
        let text = format!("<conversation_summary>\n{summary}\n</conversation_summary>");
        out.push(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}));
    }
    out
}

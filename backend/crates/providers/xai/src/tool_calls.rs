//! Calls of rewritten tools given back their client shape (PROTOCOL H.4, decision 0295):
//!
//! - a function call whose name is a flattened namespace child gets its `name` and `namespace`
//!   back (output items, `function_call_arguments.done`);
//! - a call of a rewritten `custom` tool becomes a `custom_tool_call` with `input`: its argument
//!   deltas are buffered (the JSON cannot be unwrapped piecewise) and given as one
//!   `response.custom_tool_call_input.delta` and a `…input.done` before its `output_item.done`;
//! - the `tools` array in `response` objects is the one the client sent.
//!
//! Item ids and output indexes stay the upstream's; `events.rs` numbers what comes out.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::tools::{ClientTool, ToolMap};

/// An event type and its payload.
pub type Event = (String, Map<String, Value>);

/// A custom tool call being streamed.
#[derive(Debug)]
struct CustomCall {
    item_id: Value,
    key: &'static str,
    arguments: String,
    input_sent: bool,
}

/// The per-stream state of the way back.
#[derive(Debug, Default)]
pub struct CallRestorer {
    tools: ToolMap,
    /// Custom calls by output index.
    custom: HashMap<u64, CustomCall>,
}

fn output_index(event: &Map<String, Value>) -> u64 {
    event.get("output_index").and_then(Value::as_u64).unwrap_or(u64::MAX)
}

impl CallRestorer {
    pub fn new(tools: ToolMap) -> Self {
        Self { tools, custom: HashMap::new() }
    }

    /// The events the client gets for one upstream event of type `kind`, in order.
    pub fn restore(&mut self, kind: &str, mut event: Map<String, Value>) -> Vec<Event> {
        if self.tools.is_empty() {
            return vec![(kind.to_owned(), event)];
        }
        let index = output_index(&event);
        match kind {
            "response.output_item.added" => {
                if let Some(key) = event.get_mut("item").and_then(|item| restore_item(&self.tools, item)) {
                    let item_id = event.get("item").and_then(|i| i.get("id")).cloned().unwrap_or(Value::Null);
                    self.custom.insert(index, CustomCall { item_id, key, arguments: String::new(), input_sent: false });
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(call) = self.custom.get_mut(&index) {
                    call.arguments.push_str(event.get("delta").and_then(Value::as_str).unwrap_or_default());
                    return Vec::new();
                }
            }
            "response.function_call_arguments.done" => {
                if let Some(call) = self.custom.get_mut(&index) {
                    if let Some(arguments) = event.get("arguments").and_then(Value::as_str) {
                        call.arguments = arguments.to_owned();
                    }
                    return input_events(call, index);
                }
                self.restore_name(&mut event);
            }
            "response.output_item.done" => {
                let mut out = Vec::new();
                if let Some(mut call) = self.custom.remove(&index) {
                    if let Some(arguments) = event.get("item").and_then(|i| i.get("arguments")).and_then(Value::as_str)
                    {
                        call.arguments = arguments.to_owned();
                    }
                    if !call.input_sent {
                        out = input_events(&mut call, index);
                    }
                }
                if let Some(item) = event.get_mut("item") {
                    restore_item(&self.tools, item);
                }
                out.push((kind.to_owned(), event));
                return out;
            }
            _ => {
                if let Some(response) = event.get_mut("response") {
                    restore_response(&self.tools, response);
                }
            }
        }
        vec![(kind.to_owned(), event)]
    }

    /// `name` of a `function_call_arguments.done` of a namespace child.
    fn restore_name(&self, event: &mut Map<String, Value>) {
        let Some(upstream) = event.get("name").and_then(Value::as_str) else { return };
        if let Some(ClientTool::Namespaced { name, .. }) = self.tools.client_tool(upstream) {
            event.insert("name".to_owned(), json!(name));
        }
    }
}

/// `custom_tool_call_input.delta` (when there is input) and `.done` of `call`.
fn input_events(call: &mut CustomCall, index: u64) -> Vec<Event> {
    call.input_sent = true;
    let input = custom_input(&call.arguments, call.key);
    let base = |key: &str, value: Value| {
        let mut event = Map::new();
        event.insert("item_id".to_owned(), call.item_id.clone());
        event.insert("output_index".to_owned(), json!(index));
        event.insert(key.to_owned(), value);
        event
    };
    let mut out = Vec::new();
    if !input.is_empty() {
        out.push(("response.custom_tool_call_input.delta".to_owned(), base("delta", json!(input))));
    }
    out.push(("response.custom_tool_call_input.done".to_owned(), base("input", json!(input))));
    out
}

/// The free-form input inside a rewritten custom call's arguments: the `key` string, else the
/// one string value, else the arguments as they came.
pub fn custom_input(arguments: &str, key: &str) -> String {
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(arguments) else { return arguments.to_owned() };
    if let Some(Value::String(input)) = object.get(key) {
        return input.clone();
    }
    let mut strings = object.values().filter_map(Value::as_str);
    match (strings.next(), strings.next()) {
        (Some(only), None) if object.len() == 1 => only.to_owned(),
        _ => arguments.to_owned(),
    }
}

/// An output item in the client's shape; `Some(key)` when it became a custom tool call.
pub fn restore_item(tools: &ToolMap, item: &mut Value) -> Option<&'static str> {
    if item.get("type").and_then(Value::as_str) != Some("function_call") {
        return None;
    }
    let upstream = item.get("name").and_then(Value::as_str)?;
    match tools.client_tool(upstream)?.clone() {
        ClientTool::Namespaced { namespace, name } => {
            item["name"] = json!(name);
            item["namespace"] = json!(namespace);
            None
        }
        ClientTool::Custom { name, key } => {
            let arguments = item.get("arguments").and_then(Value::as_str).unwrap_or_default();
            let mut custom = json!({"type": "custom_tool_call", "id": item.get("id").cloned(),
                "call_id": item.get("call_id").cloned(), "name": name, "input": custom_input(arguments, key)});
            if let Some(status) = item.get("status") {
                custom["status"] = status.clone();
            }
            *item = custom;
            Some(key)
        }
    }
}

/// A `response` object: its output items restored, its `tools` the client's.
pub fn restore_response(tools: &ToolMap, response: &mut Value) {
    if let Some(Value::Array(output)) = response.get_mut("output") {
        for item in output.iter_mut() {
            restore_item(tools, item);
        }
    }
    if let (Some(client), Some(object)) = (tools.client_tools(), response.as_object_mut()) {
        object.insert("tools".to_owned(), client.clone());
    }
}

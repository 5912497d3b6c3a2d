//! The request direction: a Chat Completions body becomes a Responses body.
//!
//! | Chat Completions | Responses |
//! | --- | --- |
//! | `messages[role=system/developer]` | `input` message, role `developer` |
//! | `messages[role=user]` string / `text` / `image_url` parts | `input_text` / `input_image` parts |
//! | `messages[role=assistant].content` | `output_text` parts |
//! | assistant `tool_calls[]` | one `function_call` item each |
//! | `messages[role=tool]` | `function_call_output` |
//! | `tools[type=function]` | flattened `function` tools |
//! | `tool_choice`, `parallel_tool_calls` | the same (named choice flattened) |
//! | `response_format` | `text.format` |
//! | `reasoning_effort` | `reasoning.effort` |
//! | `service_tier` (`auto`/`default`: none) | `service_tier` |
//! | `max_tokens` / `max_completion_tokens` | `max_output_tokens` |
//! | `temperature`, `top_p`, `user`, `metadata`, `prompt_cache_key` | the same |
//! | `stop` | applied locally, not sent |
//! | `stream_options.include_usage` | local: the usage chunk |
//! | `n` > 1 | refused |
//!
//! Always `store: false`. Everything else (`seed`, penalties, `logit_bias`, `logprobs`, xAI's
//! `search_parameters`, …) is dropped: a provider that refuses a parameter drops it itself.

use serde_json::{Map, Value, json};

use crate::error::{ApiError, ErrorCode};

/// Most stop sequences a request may carry (the OpenAI limit).
pub const MAX_STOP_SEQUENCES: usize = 4;

/// A converted request.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    /// The Responses body to run.
    pub body: Vec<u8>,
    pub model: String,
    pub stream: bool,
    /// `stream_options.include_usage`: a usage chunk before `[DONE]`.
    pub include_usage: bool,
    pub stop: Vec<String>,
}

fn invalid(message: impl Into<String>, param: &str) -> ApiError {
    ApiError::new(ErrorCode::InvalidRequest, message).with_param(param)
}

/// Converts a Chat Completions body.
pub fn to_responses(body: &[u8]) -> Result<ChatRequest, ApiError> {
    let chat: Map<String, Value> = match serde_json::from_slice(body) {
        Ok(Value::Object(chat)) => chat,
        Ok(_) => return Err(ApiError::new(ErrorCode::InvalidJson, "The request body must be a JSON object.")),
        Err(error) => {
            return Err(ApiError::new(ErrorCode::InvalidJson, format!("The body is not valid JSON: {error}")));
        }
    };
    let model = match chat.get("model") {
        Some(Value::String(model)) if !model.is_empty() => model.clone(),
        _ => return Err(invalid("Missing required parameter: 'model'.", "model")),
    };
    let stream = match chat.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(stream)) => *stream,
        Some(_) => return Err(invalid("'stream' must be a boolean.", "stream")),
    };
    if chat.get("n").and_then(Value::as_u64).is_some_and(|n| n != 1) {
        return Err(invalid("Only n=1 is supported.", "n"));
    }
    let mut out = Map::new();
    out.insert("model".to_owned(), Value::String(model.clone()));
    out.insert("input".to_owned(), Value::Array(input(chat.get("messages"))?));
    out.insert("stream".to_owned(), Value::Bool(stream));
    out.insert("store".to_owned(), Value::Bool(false));
    options(&chat, &mut out)?;
    let include_usage =
        chat.get("stream_options").and_then(|o| o.get("include_usage")).and_then(Value::as_bool).unwrap_or(false);
    let body = serde_json::to_vec(&Value::Object(out)).unwrap_or_default();
    Ok(ChatRequest { body, model, stream, include_usage, stop: stop(chat.get("stop"))? })
}

/// The request options beside `messages`.
fn options(chat: &Map<String, Value>, out: &mut Map<String, Value>) -> Result<(), ApiError> {
    if let Some(tools) = chat.get("tools").filter(|t| !t.is_null()) {
        out.insert("tools".to_owned(), tools_of(tools)?);
    }
    if let Some(choice) = chat.get("tool_choice").filter(|t| !t.is_null()) {
        out.insert("tool_choice".to_owned(), tool_choice(choice)?);
    }
    for same in ["parallel_tool_calls", "temperature", "top_p", "user", "metadata", "prompt_cache_key"] {
        if let Some(value) = chat.get(same).filter(|v| !v.is_null()) {
            out.insert(same.to_owned(), value.clone());
        }
    }
    let max = chat.get("max_completion_tokens").or_else(|| chat.get("max_tokens")).filter(|v| !v.is_null());
    if let Some(max) = max {
        out.insert("max_output_tokens".to_owned(), max.clone());
    }
    if let Some(format) = chat.get("response_format").filter(|v| !v.is_null()) {
        out.insert("text".to_owned(), json!({"format": text_format(format)?}));
    }
    if let Some(effort) = chat.get("reasoning_effort").filter(|v| !v.is_null()) {
        let Value::String(effort) = effort else {
            return Err(invalid("'reasoning_effort' must be a string.", "reasoning_effort"));
        };
        out.insert("reasoning".to_owned(), json!({"effort": effort}));
    }
    match chat.get("service_tier") {
        None | Some(Value::Null) => {}
        Some(Value::String(tier)) if tier == "auto" || tier == "default" => {}
        Some(Value::String(tier)) => {
            out.insert("service_tier".to_owned(), Value::String(tier.clone()));
        }
        Some(_) => return Err(invalid("'service_tier' must be a string.", "service_tier")),
    }
    Ok(())
}

fn stop(value: Option<&Value>) -> Result<Vec<String>, ApiError> {
    let stops = match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(stop)) => vec![stop.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| invalid("'stop' must be a string or an array of strings.", "stop"))?,
        Some(_) => return Err(invalid("'stop' must be a string or an array of strings.", "stop")),
    };
    if stops.len() > MAX_STOP_SEQUENCES {
        return Err(invalid(format!("'stop' holds at most {MAX_STOP_SEQUENCES} sequences."), "stop"));
    }
    Ok(stops)
}

/// `messages` → `input` items.
fn input(messages: Option<&Value>) -> Result<Vec<Value>, ApiError> {
    let Some(Value::Array(messages)) = messages else {
        return Err(invalid("Missing required parameter: 'messages'.", "messages"));
    };
    if messages.is_empty() {
        return Err(invalid("'messages' must hold at least one message.", "messages"));
    }
    let mut items = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        let param = format!("messages[{index}]");
        let role = message.get("role").and_then(Value::as_str).unwrap_or_default();
        match role {
            "system" | "developer" => items.push(message_item("developer", input_parts(message, &param, false)?)),
            "user" => items.push(message_item("user", input_parts(message, &param, true)?)),
            "assistant" => assistant(message, &param, &mut items)?,
            "tool" => items.push(tool_output(message, &param)?),
            other => return Err(invalid(format!("Unsupported message role '{other}'."), &format!("{param}.role"))),
        }
    }
    Ok(items)
}

fn message_item(role: &str, content: Vec<Value>) -> Value {
    json!({"type": "message", "role": role, "content": content})
}

/// The parts of a system, developer or user message (`images`: image parts allowed).
fn input_parts(message: &Value, param: &str, images: bool) -> Result<Vec<Value>, ApiError> {
    let param = format!("{param}.content");
    match message.get("content") {
        Some(Value::String(text)) => Ok(vec![json!({"type": "input_text", "text": text})]),
        Some(Value::Array(parts)) => parts.iter().map(|part| input_part(part, &param, images)).collect(),
        _ => Err(invalid("The message content must be a string or an array of parts.", &param)),
    }
}

fn input_part(part: &Value, param: &str, images: bool) -> Result<Value, ApiError> {
    match part.get("type").and_then(Value::as_str) {
        Some("text") => Ok(json!({"type": "input_text", "text": text_of(part, param)?})),
        Some("image_url") if images => {
            let image = part.get("image_url");
            let url = image.and_then(|i| i.get("url").or(Some(i))).and_then(Value::as_str);
            let Some(url) = url else { return Err(invalid("An image part needs 'image_url.url'.", param)) };
            let mut item = json!({"type": "input_image", "image_url": url});
            if let Some(detail) = image.and_then(|i| i.get("detail")).filter(|d| d.is_string()) {
                item["detail"] = detail.clone();
            }
            Ok(item)
        }
        other => Err(invalid(format!("Unsupported content part type '{}'.", other.unwrap_or("")), param)),
    }
}

fn text_of(part: &Value, param: &str) -> Result<String, ApiError> {
    part.get("text")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| invalid("A text part needs a string 'text'.", param))
}

/// An assistant message: its text as an `output_text` message, then one `function_call` per
/// tool call.
fn assistant(message: &Value, param: &str, items: &mut Vec<Value>) -> Result<(), ApiError> {
    let text = match message.get("content") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|part| match part.get("type").and_then(Value::as_str) {
                Some("text") => text_of(part, param),
                Some("refusal") => Ok(part.get("refusal").and_then(Value::as_str).unwrap_or_default().to_owned()),
                _ => Err(invalid("Assistant content parts must be 'text' or 'refusal'.", param)),
            })
            .collect::<Result<Vec<_>, _>>()?
            .concat(),
        Some(_) => return Err(invalid("The message content must be a string or an array of parts.", param)),
    };
    if !text.is_empty() {
        items.push(message_item("assistant", vec![json!({"type": "output_text", "text": text})]));
    }
    let calls = match message.get("tool_calls") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(calls)) => calls,
        Some(_) => return Err(invalid("'tool_calls' must be an array.", &format!("{param}.tool_calls"))),
    };
    for (index, call) in calls.iter().enumerate() {
        let param = format!("{param}.tool_calls[{index}]");
        let id = call.get("id").and_then(Value::as_str);
        let function = call.get("function");
        let name = function.and_then(|f| f.get("name")).and_then(Value::as_str);
        let (Some(id), Some(name)) = (id, name) else {
            return Err(invalid("A tool call needs 'id' and 'function.name'.", &param));
        };
        let arguments = function.and_then(|f| f.get("arguments")).and_then(Value::as_str).unwrap_or("{}");
        items.push(json!({"type": "function_call", "call_id": id, "name": name, "arguments": arguments}));
    }
    Ok(())
}

fn tool_output(message: &Value, param: &str) -> Result<Value, ApiError> {
    let Some(call_id) = message.get("tool_call_id").and_then(Value::as_str) else {
        return Err(invalid("A tool message needs 'tool_call_id'.", &format!("{param}.tool_call_id")));
    };
    let output = match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().map(|part| text_of(part, param)).collect::<Result<Vec<_>, _>>()?.concat()
        }
        _ => return Err(invalid("A tool message needs 'content'.", &format!("{param}.content"))),
    };
    Ok(json!({"type": "function_call_output", "call_id": call_id, "output": output}))
}

fn tools_of(tools: &Value) -> Result<Value, ApiError> {
    let Value::Array(tools) = tools else { return Err(invalid("'tools' must be an array.", "tools")) };
    tools
        .iter()
        .enumerate()
        .map(|(index, tool)| {
            let param = format!("tools[{index}]");
            let function =
                tool.get("function").filter(|_| tool.get("type").and_then(Value::as_str) == Some("function"));
            let Some(Value::Object(function)) = function else {
                return Err(invalid("Only tools of type 'function' are supported.", &param));
            };
            if !function.get("name").is_some_and(Value::is_string) {
                return Err(invalid("A function tool needs 'function.name'.", &param));
            }
            let mut flat = Map::new();
            flat.insert("type".to_owned(), Value::String("function".to_owned()));
            for key in ["name", "description", "parameters", "strict"] {
                if let Some(value) = function.get(key).filter(|v| !v.is_null()) {
                    flat.insert(key.to_owned(), value.clone());
                }
            }
            Ok(Value::Object(flat))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

fn tool_choice(choice: &Value) -> Result<Value, ApiError> {
    match choice {
        Value::String(mode) if matches!(mode.as_str(), "auto" | "none" | "required") => Ok(choice.clone()),
        Value::Object(_) => match choice.get("function").and_then(|f| f.get("name")).and_then(Value::as_str) {
            Some(name) => Ok(json!({"type": "function", "name": name})),
            None => Err(invalid("A named tool_choice needs 'function.name'.", "tool_choice")),
        },
        _ => Err(invalid("'tool_choice' must be 'auto', 'none', 'required' or a named function.", "tool_choice")),
    }
}

fn text_format(format: &Value) -> Result<Value, ApiError> {
    match format.get("type").and_then(Value::as_str) {
        Some("text") => Ok(json!({"type": "text"})),
        Some("json_object") => Ok(json!({"type": "json_object"})),
        Some("json_schema") => {
            let Some(Value::Object(schema)) = format.get("json_schema") else {
                return Err(invalid("'response_format.json_schema' is required.", "response_format"));
            };
            let mut flat = Map::new();
            flat.insert("type".to_owned(), Value::String("json_schema".to_owned()));
            for key in ["name", "description", "schema", "strict"] {
                if let Some(value) = schema.get(key).filter(|v| !v.is_null()) {
                    flat.insert(key.to_owned(), value.clone());
                }
            }
            Ok(Value::Object(flat))
        }
        _ => Err(invalid("'response_format.type' must be text, json_object or json_schema.", "response_format")),
    }
}

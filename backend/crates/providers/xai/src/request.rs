//! The request edits of PROTOCOL H.3: the Grok CLI proxy speaks Responses, so the client's body
//! goes up with targeted edits (forced stream, `store` default, `include`, model mapping,
//! session ids, fields the proxy refuses or that carry another account's identity).
//!
//! Not byte-transparent by design: the body is parsed and written again.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::tools::ToolMap;

/// Appended to `include` so reasoning can be replayed by the client.
pub const ENCRYPTED_REASONING: &str = "reasoning.encrypted_content";
/// The input item that asks for an in-band compaction (PROTOCOL H.6).
pub const COMPACTION_TRIGGER: &str = "compaction_trigger";

/// Top-level fields never sent upstream: gateway/OpenAI-only options, identity and
/// account-bound ids (a response id of one account means nothing to another).
pub(crate) const DROPPED: &[&str] = &[
    "provider_options",
    "service_tier",
    "client_metadata",
    "prompt_cache_retention",
    "safety_identifier",
    "external_web_access",
    "stream_options",
    "previous_response_id",
    "response_id",
    "conversation",
    "conversation_id",
    "session_id",
    "agent_id",
    "user",
    "type",
    "generate",
];
/// Identity keys removed from `metadata`.
pub(crate) const IDENTITY_KEYS: &[&str] = &[
    "authorization",
    "cookie",
    "access_token",
    "refresh_token",
    "id_token",
    "email",
    "user_id",
    "account_id",
    "team_id",
    "token",
    "x-grok-user-id",
    "accessToken",
    "refreshToken",
    "idToken",
    "userId",
    "accountId",
    "teamId",
];
/// The upstream body and the session the request belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    pub body: Vec<u8>,
    /// The tenant-isolated session UUID (`x-grok-conv-id` / `x-grok-session-id`), when the client
    /// named a session.
    pub session: Option<String>,
    /// The tool renames, for the way back (`tool_calls.rs`).
    pub tools: ToolMap,
    /// The input ended with a `compaction_trigger` item (removed): the in-band compaction path
    /// (PROTOCOL H.6, `inband.rs`).
    pub compaction: bool,
}

/// Why the body cannot be sent; names the field (`invalid_request_normalization`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct NormalizationError {
    pub field: &'static str,
    pub reason: &'static str,
}

pub(crate) fn refuse(field: &'static str, reason: &'static str) -> NormalizationError {
    NormalizationError { field, reason }
}

/// Edits the client's body for the Grok CLI proxy. `scope` isolates sessions per client key.
pub fn prepare(body: &[u8], upstream_model: &str, scope: &str) -> Result<Prepared, NormalizationError> {
    let value: Value = serde_json::from_slice(body).map_err(|_| refuse("body", "not a JSON object"))?;
    let Value::Object(mut map) = value else { return Err(refuse("body", "not a JSON object")) };
    let seed = session_seed(&map);
    for field in DROPPED {
        map.remove(*field);
    }
    map.insert("model".to_owned(), json!(upstream_model));
    map.insert("stream".to_owned(), json!(true));
    if map.get("store").is_none_or(Value::is_null) {
        map.insert("store".to_owned(), json!(false));
    }
    edit_include(&mut map)?;
    if let Some(Value::Object(metadata)) = map.get_mut("metadata") {
        for key in IDENTITY_KEYS {
            metadata.remove(*key);
        }
    }
    move_response_format(&mut map);
    edit_reasoning(&mut map, upstream_model);
    let compaction = take_compaction_trigger(&mut map)?;
    let tools = crate::tools::rewrite(&mut map);
    edit_input(&mut map, &tools);
    let session = seed.map(|seed| session_uuid(scope, &seed));
    match &session {
        Some(id) => map.insert("prompt_cache_key".to_owned(), json!(id)),
        None => map.remove("prompt_cache_key"),
    };
    let body = serde_json::to_vec(&Value::Object(map)).map_err(|_| refuse("body", "cannot be encoded"))?;
    Ok(Prepared { body, session, tools, compaction })
}

/// `body` (an edited upstream body) continuing the stored upstream response `id` (native
/// continuation, PROTOCOL H.3: the client's own id was stripped by [`prepare`]).
pub fn with_previous_response(body: &[u8], id: &str) -> Result<Vec<u8>, NormalizationError> {
    let mut value: Value = serde_json::from_slice(body).map_err(|_| refuse("body", "not a JSON object"))?;
    let map = value.as_object_mut().ok_or_else(|| refuse("body", "not a JSON object"))?;
    map.insert("previous_response_id".to_owned(), json!(id));
    serde_json::to_vec(&value).map_err(|_| refuse("body", "cannot be encoded"))
}

/// The explicit session signal: `prompt_cache_key`, `metadata.session_id`, `session_id`,
/// `conversation_id` (trimmed, at most 512 bytes).
fn session_seed(map: &Map<String, Value>) -> Option<String> {
    fn text(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty() && s.len() <= 512)
    }
    text(map.get("prompt_cache_key"))
        .or_else(|| text(map.get("metadata").and_then(|m| m.get("session_id"))))
        .or_else(|| text(map.get("session_id")))
        .or_else(|| text(map.get("conversation_id")))
        .map(str::to_owned)
}

/// A UUID from the first 16 bytes of SHA-256 over scope and seed.
pub fn session_uuid(scope: &str, seed: &str) -> String {
    let digest = Sha256::digest(format!("switchboard:xai:{scope}:{seed}").as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    uuid::Uuid::from_bytes(bytes).to_string()
}

fn edit_include(map: &mut Map<String, Value>) -> Result<(), NormalizationError> {
    let include = match map.remove("include") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(refuse("include", "must be an array of strings")),
    };
    if include.iter().any(|item| !item.is_string()) {
        return Err(refuse("include", "must be an array of strings"));
    }
    let mut include = include;
    if !include.iter().any(|item| item.as_str() == Some(ENCRYPTED_REASONING)) {
        include.push(json!(ENCRYPTED_REASONING));
    }
    map.insert("include".to_owned(), Value::Array(include));
    Ok(())
}

/// `response_format` → `text.format` (a `json_schema` wrapper flattened) unless set.
fn move_response_format(map: &mut Map<String, Value>) {
    let Some(format) = map.remove("response_format") else { return };
    let text = map.entry("text").or_insert_with(|| json!({}));
    let Some(text) = text.as_object_mut() else { return };
    if text.contains_key("format") {
        return;
    }
    let flattened = match format {
        Value::Object(mut outer) if outer.get("type").and_then(Value::as_str) == Some("json_schema") => {
            if let Some(Value::Object(inner)) = outer.remove("json_schema") {
                for (k, v) in inner {
                    outer.entry(k).or_insert(v);
                }
            }
            Value::Object(outer)
        }
        other => other,
    };
    text.insert("format".to_owned(), flattened);
}

/// Effort levels of H.3; composer models take no reasoning fields.
fn edit_reasoning(map: &mut Map<String, Value>, model: &str) {
    let top = ["reasoning_effort", "reasoningEffort"].iter().find_map(|k| map.remove(*k));
    if model.contains("composer") {
        map.remove("reasoning");
        return;
    }
    let mut reasoning = match map.remove("reasoning") {
        Some(Value::Object(r)) => r,
        _ => Map::new(),
    };
    let effort = reasoning.remove("effort").or(top);
    if let Some(level) = effort.as_ref().and_then(Value::as_str).and_then(effort_level) {
        reasoning.insert("effort".to_owned(), json!(level));
    }
    if !reasoning.is_empty() {
        map.insert("reasoning".to_owned(), Value::Object(reasoning));
    }
}

fn effort_level(value: &str) -> Option<&'static str> {
    match value.to_ascii_lowercase().as_str() {
        "none" => Some("none"),
        "minimal" | "low" => Some("low"),
        "medium" => Some("medium"),
        "high" | "xhigh" | "extrahigh" | "max" | "ultra" => Some("high"),
        _ => None,
    }
}

/// Removes a trailing `compaction_trigger` item (`true`); one anywhere else is refused.
fn take_compaction_trigger(map: &mut Map<String, Value>) -> Result<bool, NormalizationError> {
    let Some(Value::Array(items)) = map.get_mut("input") else { return Ok(false) };
    let is_trigger = |item: &Value| item.get("type").and_then(Value::as_str) == Some(COMPACTION_TRIGGER);
    let last = items.last().is_some_and(is_trigger);
    if last {
        items.pop();
    }
    if items.iter().any(is_trigger) {
        return Err(refuse("input", "a `compaction_trigger` item may only be the last input item"));
    }
    Ok(last)
}

/// Message items: role `model` → `assistant`; Grok-internal keys removed. Tool calls and
/// compaction items in the forms xAI knows (`history.rs`). Reasoning items: only what xAI can
/// take (`reasoning.rs`).
pub(crate) fn edit_input(map: &mut Map<String, Value>, tools: &ToolMap) {
    let Some(Value::Array(items)) = map.get_mut("input") else { return };
    crate::history::rewrite(items, tools);
    for item in items.iter_mut() {
        if item.get("type").and_then(Value::as_str) == Some("reasoning") {
            crate::reasoning::normalize(item);
            continue;
        }
        let Some(object) = item.as_object_mut() else { continue };
        if object.get("role").and_then(Value::as_str) == Some("model") {
            object.insert("role".to_owned(), json!("assistant"));
        }
        object.remove("phase");
        object.remove("internal_chat_message_metadata_passthrough");
    }
}

/// `body` (an edited upstream body) with its history rewritten once more: items inserted after
/// [`prepare`] (the replay cache's, in the client's shape) go up in the forms xAI knows.
pub fn rewrite_history(body: Vec<u8>, tools: &ToolMap) -> Vec<u8> {
    let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(&body) else { return body };
    let Some(Value::Array(items)) = map.get_mut("input") else { return body };
    crate::history::rewrite(items, tools);
    serde_json::to_vec(&Value::Object(map)).unwrap_or(body)
}

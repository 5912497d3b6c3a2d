//! The reasoning replay cache (PROTOCOL H.7, decision 0266): the reasoning xAI returned for a
//! turn, inserted into the next turn of the same conversation when the client did not send it
//! back (Chat Completions clients, clients that drop reasoning items).
//!
//! - keyed by (upstream model, session UUID, account): only requests with an explicit session
//!   (`prompt_cache_key`, `metadata.session_id`, …) take part, and a ciphertext is only ever
//!   replayed to the account that produced it;
//! - filled from a `response.completed`: reasoning items with a plausible ciphertext (kept as
//!   `id` + `encrypted_content`, no readable text), function and custom tool calls, and the last
//!   assistant text; a completed turn without such reasoning clears the entry;
//! - bounded: 1,024 entries (oldest evicted), 1 hour each, at most 4,096 items and 8 MiB per
//!   entry (a larger turn is not kept) — `gateway_core::expiring_map`;
//! - on the next turn the missing reasoning items and calls are inserted before the first input
//!   item that belongs to the cached turn (its call, the call's output, or its assistant
//!   message); nothing is inserted when no such item exists, or when the client's last
//!   assistant text differs from the cached one (another branch of the conversation).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use gateway_core::domain::AccountId;
use gateway_core::expiring_map::ExpiringMap;
use serde_json::{Value, json};

use crate::reasoning::plausible_ciphertext;

/// Bounds of the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayLimits {
    pub entries: usize,
    pub ttl: Duration,
    pub items_per_entry: usize,
    pub bytes_per_entry: usize,
}

impl Default for ReplayLimits {
    fn default() -> Self {
        Self { entries: 1_024, ttl: Duration::from_secs(3_600), items_per_entry: 4_096, bytes_per_entry: 8 << 20 }
    }
}

/// Whose turn an entry holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReplayKey {
    pub model: String,
    pub session: String,
    pub account: AccountId,
}

/// One cached turn.
#[derive(Debug)]
struct Entry {
    /// Reasoning items and calls, in output order.
    items: Vec<Value>,
    /// The text of the turn's last assistant message.
    assistant_text: Option<String>,
}

pub struct ReplayCache {
    limits: ReplayLimits,
    map: ExpiringMap<ReplayKey, Arc<Entry>>,
}

const CALLS: &[&str] = &["function_call", "custom_tool_call"];
const OUTPUTS: &[&str] = &["function_call_output", "custom_tool_call_output"];

fn kind(item: &Value) -> &str {
    item.get("type").and_then(Value::as_str).unwrap_or("message")
}

fn text(item: &Value, key: &str) -> Option<String> {
    item.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The text of an assistant message (a string content or its text parts), else `None`.
fn assistant_text(item: &Value) -> Option<String> {
    if kind(item) != "message" || item.get("role").and_then(Value::as_str) != Some("assistant") {
        return None;
    }
    match item.get("content")? {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            Some(parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().concat())
        }
        _ => None,
    }
}

impl Default for ReplayCache {
    fn default() -> Self {
        Self::new(ReplayLimits::default())
    }
}

impl ReplayCache {
    pub fn new(limits: ReplayLimits) -> Self {
        Self { limits, map: ExpiringMap::new(limits.entries, limits.ttl) }
    }

    /// Live entries.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Keeps what the next turn may need of a completed response's `output`.
    pub fn remember(&self, key: ReplayKey, output: &[Value]) {
        let mut items = Vec::new();
        let mut last_text = None;
        for item in output {
            match kind(item) {
                "reasoning" => {
                    let Some(ciphertext) = text(item, "encrypted_content").filter(|c| plausible_ciphertext(c)) else {
                        continue;
                    };
                    let mut kept = json!({"type": "reasoning", "summary": [], "encrypted_content": ciphertext});
                    if let Some(id) = item.get("id").filter(|id| id.is_string()) {
                        kept["id"] = id.clone();
                    }
                    items.push(kept);
                }
                k if CALLS.contains(&k) => {
                    let mut call = item.clone();
                    if let Some(object) = call.as_object_mut() {
                        object.remove("status");
                    }
                    items.push(call);
                }
                _ => {
                    if let Some(text) = assistant_text(item) {
                        last_text = Some(text);
                    }
                }
            }
        }
        let bytes: usize = items.iter().map(|i| serde_json::to_vec(i).map_or(usize::MAX, |b| b.len())).sum();
        let worth = items.iter().any(|i| kind(i) == "reasoning");
        if !worth || items.len() > self.limits.items_per_entry || bytes > self.limits.bytes_per_entry {
            self.map.remove(&key);
            return;
        }
        self.map.insert(key, Arc::new(Entry { items, assistant_text: last_text }));
    }

    /// The body with the cached turn's missing items inserted into its `input`, or `None` when
    /// nothing is inserted.
    pub fn fill(&self, key: &ReplayKey, body: &[u8]) -> Option<Vec<u8>> {
        let entry = self.map.get(key)?;
        let mut value: Value = serde_json::from_slice(body).ok()?;
        let input = value.get_mut("input")?.as_array_mut()?;
        let inserted = insert_missing(&entry, input);
        if inserted == 0 {
            return None;
        }
        tracing::debug!(inserted, "replayed cached xAI reasoning into the history");
        serde_json::to_vec(&value).ok()
    }
}

/// Inserts the entry's items the input lacks; returns how many.
fn insert_missing(entry: &Entry, input: &mut Vec<Value>) -> usize {
    let client_text = input.iter().rev().find_map(assistant_text);
    if let (Some(cached), Some(client)) = (&entry.assistant_text, &client_text)
        && cached != client
    {
        return 0;
    }
    let mut present = HashSet::new();
    for item in input.iter() {
        match kind(item) {
            "reasoning" => {
                present.extend(text(item, "id").map(|id| format!("id:{id}")));
                present.extend(text(item, "encrypted_content").map(|c| format!("cipher:{c}")));
            }
            k if CALLS.contains(&k) => present.extend(text(item, "call_id").map(|id| format!("call:{id}"))),
            _ => {}
        }
    }
    let missing: Vec<Value> = entry
        .items
        .iter()
        .filter(|item| match kind(item) {
            "reasoning" => {
                let by_id = text(item, "id").is_some_and(|id| present.contains(&format!("id:{id}")));
                let by_cipher =
                    text(item, "encrypted_content").is_some_and(|c| present.contains(&format!("cipher:{c}")));
                !by_id && !by_cipher
            }
            _ => text(item, "call_id").is_none_or(|id| !present.contains(&format!("call:{id}"))),
        })
        .cloned()
        .collect();
    if !missing.iter().any(|item| kind(item) == "reasoning") {
        return 0;
    }
    let calls: HashSet<String> = entry.items.iter().filter_map(|i| text(i, "call_id")).collect();
    let anchor = input.iter().position(|item| {
        let k = kind(item);
        let own_call =
            (CALLS.contains(&k) || OUTPUTS.contains(&k)) && text(item, "call_id").is_some_and(|id| calls.contains(&id));
        own_call || (entry.assistant_text.is_some() && assistant_text(item) == entry.assistant_text)
    });
    let Some(anchor) = anchor else { return 0 };
    let count = missing.len();
    input.splice(anchor..anchor, missing);
    count
}

/// Watches one stream for what [`ReplayCache::remember`] keeps: the items of
/// `response.output_item.done` events, and the output of `response.completed` (which wins
/// when it lists any). Other terminal events keep nothing.
pub struct Recorder {
    cache: Arc<ReplayCache>,
    key: ReplayKey,
    done_items: Vec<Value>,
}

impl Recorder {
    pub fn new(cache: Arc<ReplayCache>, key: ReplayKey) -> Self {
        Self { cache, key, done_items: Vec::new() }
    }

    /// One client-bound frame (already translated).
    pub fn observe(&mut self, frame: &gateway_protocol::SseFrame) {
        let Some(name) = frame.event_name() else { return };
        if name != "response.output_item.done" && name != "response.completed" {
            return;
        }
        let Some(data) = frame.data() else { return };
        let Ok(event) = serde_json::from_slice::<Value>(&data) else { return };
        if name == "response.output_item.done" {
            if let Some(item) = event.get("item") {
                self.done_items.push(item.clone());
            }
            return;
        }
        let output = event.get("response").and_then(|r| r.get("output")).and_then(Value::as_array);
        let output = output.filter(|o| !o.is_empty()).map_or(self.done_items.as_slice(), Vec::as_slice);
        self.cache.remember(self.key.clone(), output);
    }
}

//! In-band compaction (PROTOCOL H.6 [CPR] path, decision 0296): an ordinary `/v1/responses`
//! turn whose input ends with a `compaction_trigger` item (the Codex CLI sends one when its
//! context fills) becomes one normal call through the Grok CLI proxy with the whole history and
//! a fixed summary prompt; the answer must carry a reasoning `encrypted_content`, and the client
//! gets exactly `response.created`, one `response.output_item.done` with a `compaction` item
//! (`cmp_<uuid>`, the ciphertext, the summary text) and `response.completed` (usage copied).
//!
//! The call: `store: false`, `include` only `reasoning.encrypted_content`, no
//! `prompt_cache_key` (nor session headers), tools kept with `tool_choice: "auto"` — as official
//! Grok Build does, since some deployments refuse tools with `none` — and no `tool_choice`
//! without tools. A later turn sends the `compaction` item back; `history.rs` turns it into a
//! reasoning item and a `<conversation_summary>` user message. The session's reasoning replay
//! entry is cleared once the compaction succeeded: the history it belongs to is gone.

use std::sync::Arc;

use futures_util::StreamExt;
use gateway_core::provider::{FrameStream, StreamFailure, UpstreamEvent};
use gateway_protocol::SseFrame;
use serde_json::{Map, Value, json};

use crate::replay::{ReplayCache, ReplayKey};
use crate::request::{ENCRYPTED_REASONING, NormalizationError, refuse};

/// The summary prompt appended as the last user message.
pub const SUMMARY_PROMPT: &str = "\
The conversation above is about to be replaced by a summary so that the work can continue in a \
fresh context. Do NOT call tools: answer with text only.

Write the summary in these numbered sections:
1. Goal: what the user wants to achieve, with every constraint and preference they stated.
2. Decisions: what was decided or agreed, and why.
3. Work done: the files, commands, tool results and findings that matter, with exact names, \
paths, identifiers and values.
4. Current state: where the work stands now, including anything unfinished, failing or uncertain.
5. Next steps: what remains to be done, in order.

The summary replaces the whole history, so keep every detail needed to continue and nothing \
else. Output exactly one <summary>...</summary> block and nothing outside it.";

/// The compaction call's body from the prepared one (history edited, trigger removed).
pub fn body(prepared: &[u8]) -> Result<Vec<u8>, NormalizationError> {
    let value: Value = serde_json::from_slice(prepared).map_err(|_| refuse("body", "not a JSON object"))?;
    let Value::Object(mut map) = value else { return Err(refuse("body", "not a JSON object")) };
    map.insert("store".to_owned(), json!(false));
    map.insert("include".to_owned(), json!([ENCRYPTED_REASONING]));
    map.remove("prompt_cache_key");
    if map.get("tools").and_then(Value::as_array).is_some_and(|t| !t.is_empty()) {
        map.insert("tool_choice".to_owned(), json!("auto"));
    } else {
        map.remove("tool_choice");
    }
    let prompt =
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": SUMMARY_PROMPT}]});
    let mut input = match map.remove("input") {
        Some(Value::Array(items)) => items,
        Some(Value::String(text)) => vec![json!({"type": "message", "role": "user", "content": text})],
        _ => Vec::new(),
    };
    input.push(prompt);
    map.insert("input".to_owned(), Value::Array(input));
    serde_json::to_vec(&Value::Object(map)).map_err(|_| refuse("body", "cannot be encoded"))
}

/// What the upstream stream said, as far as a compaction needs it.
#[derive(Default)]
struct Collected {
    created: Option<Value>,
    ciphertext: Option<String>,
    text: String,
    terminal: Option<Value>,
}

type Out = Vec<Result<UpstreamEvent, StreamFailure>>;

fn event_frame(kind: &str, sequence: u64, mut payload: Map<String, Value>) -> Result<UpstreamEvent, StreamFailure> {
    payload.insert("type".to_owned(), json!(kind));
    payload.insert("sequence_number".to_owned(), json!(sequence));
    let data = serde_json::to_vec(&Value::Object(payload)).unwrap_or_default();
    Ok(UpstreamEvent::Frame(SseFrame::from_event(kind, &data)))
}

fn failure(message: &str) -> Out {
    vec![Err(StreamFailure { message: message.to_owned(), idle_timeout: false })]
}

impl Collected {
    fn item(&mut self, item: &Value) {
        match item.get("type").and_then(Value::as_str) {
            Some("reasoning") => {
                if let Some(ciphertext) = item.get("encrypted_content").and_then(Value::as_str) {
                    self.ciphertext = Some(ciphertext.to_owned());
                }
            }
            Some("message") => {
                for part in item.get("content").and_then(Value::as_array).into_iter().flatten() {
                    self.text.push_str(part.get("text").and_then(Value::as_str).unwrap_or_default());
                }
            }
            _ => {}
        }
    }

    /// Takes one translated frame; `Some` ends the stream (an upstream failure, passed on).
    fn observe(&mut self, frame: &SseFrame) -> Option<Out> {
        let kind = frame.event_name()?.to_owned();
        let Ok(Value::Object(mut event)) = serde_json::from_slice::<Value>(&frame.data()?) else { return None };
        match kind.as_str() {
            "response.created" => self.created = event.remove("response"),
            "response.output_item.done" => {
                if let Some(item) = event.get("item").cloned() {
                    self.item(&item);
                }
            }
            "response.completed" | "response.incomplete" => {
                let response = event.remove("response").unwrap_or(Value::Null);
                if self.ciphertext.is_none() && self.text.is_empty() {
                    for item in response.get("output").and_then(Value::as_array).cloned().unwrap_or_default() {
                        self.item(&item);
                    }
                }
                self.terminal = Some(response);
            }
            "response.failed" | "error" => {
                let mut out = Vec::new();
                if let Some(created) = self.created.take() {
                    out.push(frame_with_response("response.created", 0, created));
                }
                out.push(event_frame(&kind, out.len() as u64, event));
                return Some(out);
            }
            _ => {}
        }
        None
    }

    /// The three client events, or the failure of an answer without ciphertext.
    fn finish(self) -> Out {
        let Some(mut terminal) = self.terminal else {
            return failure("the compaction stream ended before its terminal event");
        };
        let Some(ciphertext) = self.ciphertext else {
            return failure("xAI answered the compaction without a reasoning encrypted_content");
        };
        let summary = summary_text(&self.text);
        let summary = if summary.is_empty() { json!([]) } else { json!([{"type": "summary_text", "text": summary}]) };
        let item = json!({
            "id": format!("cmp_{}", uuid::Uuid::new_v4().simple()), "type": "compaction", "status": "completed",
            "encrypted_content": ciphertext, "summary": summary,
        });
        let mut created = self.created.unwrap_or_else(|| terminal.clone());
        created["status"] = json!("in_progress");
        created["output"] = json!([]);
        terminal["status"] = json!("completed");
        terminal["incomplete_details"] = Value::Null;
        terminal["output"] = json!([item.clone()]);
        let mut done = Map::new();
        done.insert("output_index".to_owned(), json!(0));
        done.insert("item".to_owned(), item);
        vec![
            frame_with_response("response.created", 0, created),
            event_frame("response.output_item.done", 1, done),
            frame_with_response("response.completed", 2, terminal),
        ]
    }
}

fn frame_with_response(kind: &str, sequence: u64, response: Value) -> Result<UpstreamEvent, StreamFailure> {
    let mut payload = Map::new();
    payload.insert("response".to_owned(), response);
    event_frame(kind, sequence, payload)
}

/// The text of the one `<summary>` block, else the whole answer, trimmed.
pub fn summary_text(answer: &str) -> String {
    let inner = answer
        .split_once("<summary>")
        .and_then(|(_, rest)| rest.split_once("</summary>"))
        .map_or(answer, |(inner, _)| inner);
    inner.trim().to_owned()
}

/// The client's stream of a compaction: the upstream's translated frames read to the end, then
/// the three events. A successful compaction clears `replay`'s entry.
pub fn frames(mut upstream: FrameStream, replay: Option<(Arc<ReplayCache>, ReplayKey)>) -> FrameStream {
    let collect = async move {
        let mut collected = Collected::default();
        while let Some(event) = upstream.next().await {
            match event {
                Ok(UpstreamEvent::Frame(frame)) => {
                    if let Some(out) = collected.observe(&frame) {
                        return out;
                    }
                }
                Ok(_) => {}
                Err(failure) => return vec![Err(failure)],
            }
        }
        let out = collected.finish();
        if out.iter().all(Result::is_ok)
            && let Some((cache, key)) = replay
        {
            // A turn without reasoning clears the entry (`replay.rs`).
            cache.remember(key, &[]);
        }
        out
    };
    futures_util::stream::once(collect).flat_map(futures_util::stream::iter).boxed()
}

//! The stream direction: Responses SSE events become `chat.completion.chunk` frames.
//!
//! `response.created` opens the choice (the role chunk); text, refusal and reasoning deltas and
//! function-call items become content / tool-call chunks; the terminal event gives the final
//! chunk with `finish_reason`, the usage chunk (`stream_options.include_usage`) and
//! `data: [DONE]`. After a stop-sequence match nothing more is released, but the caller keeps
//! feeding events until the terminal one (usage and accounting come from it). A failed
//! response, an in-stream error or a stream that ends early becomes one sanitised error chunk.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::delta_text::DeltaText;
use super::finish::{chat_usage, completion_id, finish_reason};
use super::stop::StopFilter;
use crate::events::{EventKind, event_type, read_facts};
use crate::sse::SseFrame;

/// Translates one response's events.
#[derive(Debug)]
pub struct ChunkTranslator {
    id: String,
    model: String,
    created: i64,
    include_usage: bool,
    stop: StopFilter,
    text: DeltaText,
    /// Function-call output index → (tool-call index, arguments sent so far).
    tools: BTreeMap<u64, (usize, String)>,
    done: bool,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow, default)]
    delta: Option<&'a RawValue>,
}

impl ChunkTranslator {
    pub fn new(model: String, stops: Vec<String>, include_usage: bool, created: i64) -> Self {
        Self {
            id: completion_id(None),
            model,
            created,
            include_usage,
            stop: StopFilter::new(stops),
            text: DeltaText::new(),
            tools: BTreeMap::new(),
            done: false,
        }
    }

    /// Whether the response ended (its last chunk is out).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The chunks for one upstream frame (often none).
    pub fn push(&mut self, frame: &SseFrame) -> Vec<u8> {
        let Some(data) = frame.data() else { return Vec::new() };
        if self.done {
            return Vec::new();
        }
        let name = frame.event_name().map(str::to_owned).or_else(|| event_type(&data)).unwrap_or_default();
        let mut out = Vec::new();
        match name.as_str() {
            "response.created" => self.created(&data, &mut out),
            "response.output_text.delta" => {
                let text = self.decode(&data);
                let released = self.stop.push(&text);
                self.content(&mut out, "content", released);
            }
            "response.refusal.delta" | "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                if !self.stop.stopped() {
                    let field = if name == "response.refusal.delta" { "refusal" } else { "reasoning_content" };
                    let text = decode_plain(&data);
                    self.content(&mut out, field, text);
                }
            }
            "response.output_item.added" | "response.output_item.done" => self.item(&data, &mut out),
            "response.function_call_arguments.delta" => self.arguments(&data, &mut out),
            "response.completed" | "response.incomplete" => self.terminal(&data, &mut out),
            _ => match EventKind::from_type(&name) {
                EventKind::Failed | EventKind::Error => self.failed(&data, &mut out),
                _ => {}
            },
        }
        out
    }

    /// The stream ended without a terminal event.
    pub fn end_early(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        if !self.done {
            self.error(&mut out, "stream_interrupted", "The upstream stream ended before the response completed.");
        }
        out
    }

    fn decode(&mut self, data: &[u8]) -> String {
        let Ok(delta) = serde_json::from_slice::<Delta<'_>>(data) else { return String::new() };
        delta.delta.and_then(|raw| self.text.decode(raw.get())).unwrap_or_default()
    }

    fn created(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let facts = read_facts(data);
        self.id = completion_id(facts.response_id.as_deref());
        if let Some(model) = facts.model {
            self.model = model;
        }
        self.chunk(out, json!({"role": "assistant", "content": ""}), Value::Null);
    }

    fn content(&mut self, out: &mut Vec<u8>, field: &str, text: String) {
        if !text.is_empty() {
            self.chunk(out, json!({ field: text }), Value::Null);
        }
    }

    /// A function-call item: its first appearance opens a tool call (id and name); at its end
    /// whatever part of the arguments was not streamed as deltas is sent.
    fn item(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let Ok(event) = serde_json::from_slice::<Value>(data) else { return };
        let item = &event["item"];
        if item["type"] != "function_call" || self.stop.stopped() {
            return;
        }
        let output_index = event["output_index"].as_u64().unwrap_or(self.tools.len() as u64);
        if !self.tools.contains_key(&output_index) {
            let index = self.tools.len();
            self.tools.insert(output_index, (index, String::new()));
            let call = json!({"index": index, "id": item["call_id"], "type": "function",
                "function": {"name": item["name"], "arguments": ""}});
            self.chunk(out, json!({"tool_calls": [call]}), Value::Null);
        }
        if event["type"] == "response.output_item.done"
            && let Some(full) = item["arguments"].as_str()
        {
            let suffix = self.tools.get(&output_index).and_then(|(_, sent)| full.strip_prefix(sent.as_str()));
            if let Some(suffix) = suffix.filter(|s| !s.is_empty()).map(str::to_owned) {
                self.send_arguments(output_index, &suffix, out);
            }
        }
    }

    fn arguments(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let Ok(event) = serde_json::from_slice::<Value>(data) else { return };
        let (Some(index), Some(delta)) = (event["output_index"].as_u64(), event["delta"].as_str()) else { return };
        if !self.stop.stopped() && self.tools.contains_key(&index) {
            self.send_arguments(index, delta, out);
        }
    }

    fn send_arguments(&mut self, output_index: u64, arguments: &str, out: &mut Vec<u8>) {
        let Some((index, sent)) = self.tools.get_mut(&output_index) else { return };
        sent.push_str(arguments);
        let call = json!({"index": *index, "function": {"arguments": arguments}});
        self.chunk(out, json!({"tool_calls": [call]}), Value::Null);
    }

    fn terminal(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let mut rest = self.text.finish();
        rest = self.stop.push(&rest);
        rest.push_str(&self.stop.finish());
        self.content(out, "content", rest);
        let facts = read_facts(data);
        let reason = finish_reason(
            facts.status.as_deref(),
            facts.incomplete_reason.as_deref(),
            self.stop.stopped(),
            !self.tools.is_empty(),
        );
        self.chunk(out, json!({}), Value::String(reason.to_owned()));
        if self.include_usage {
            let usage = chat_usage(&facts.usage.unwrap_or_default());
            let chunk = json!({"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                "model": self.model, "choices": [], "usage": usage});
            data_line(out, &chunk);
        }
        out.extend_from_slice(b"data: [DONE]\n\n");
        self.done = true;
    }

    /// A failed response or an in-stream error: one error chunk with a stable code and a
    /// message of our own (the upstream's text is not relayed).
    fn failed(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let facts = read_facts(data);
        let code = facts
            .error_code
            .filter(|c| c.len() <= 64 && c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.'))
            .unwrap_or_else(|| "upstream_error".to_owned());
        self.error(out, &code, "The upstream failed while generating the response.");
    }

    fn error(&mut self, out: &mut Vec<u8>, code: &str, message: &str) {
        data_line(out, &json!({"error": {"message": message, "type": "server_error", "param": null, "code": code}}));
        self.done = true;
    }

    fn chunk(&self, out: &mut Vec<u8>, delta: Value, finish: Value) {
        let chunk = json!({
            "id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        data_line(out, &chunk);
    }
}

/// A delta's text when no stop filter applies to it.
fn decode_plain(data: &[u8]) -> String {
    serde_json::from_slice::<Value>(data)
        .ok()
        .and_then(|v| v.get("delta").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default()
}

fn data_line(out: &mut Vec<u8>, value: &Value) {
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(&serde_json::to_vec(value).unwrap_or_default());
    out.extend_from_slice(b"\n\n");
}

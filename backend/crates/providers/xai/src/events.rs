//! Grok SSE re-synthesised as clean Responses events (PROTOCOL H.4): every frame the client
//! gets is `event: <type>` + `data: <json>` with a contiguous `sequence_number`; keep-alives
//! (`ping`, `: ping`), Grok extras (`response.doom_loop_check`), `[DONE]` and any event type
//! the Responses API does not define are dropped; messages of failure events are scrubbed of
//! UUIDs (xAI embeds the team id). Nothing follows the terminal event.

use gateway_protocol::SseFrame;
use serde_json::Value;

use crate::classify::scrub;
use crate::tool_calls::CallRestorer;
use crate::tools::ToolMap;

/// The Responses stream event types passed on (besides `error`).
const KNOWN: &[&str] = &[
    "response.created",
    "response.in_progress",
    "response.queued",
    "response.completed",
    "response.incomplete",
    "response.failed",
    "response.output_item.added",
    "response.output_item.done",
    "response.content_part.added",
    "response.content_part.done",
    "response.output_text.delta",
    "response.output_text.done",
    "response.output_text.annotation.added",
    "response.refusal.delta",
    "response.refusal.done",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.custom_tool_call_input.delta",
    "response.custom_tool_call_input.done",
    "response.reasoning_text.delta",
    "response.reasoning_text.done",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_part.done",
    "response.reasoning_summary_text.delta",
    "response.reasoning_summary_text.done",
    "response.web_search_call.in_progress",
    "response.web_search_call.searching",
    "response.web_search_call.completed",
    "response.file_search_call.in_progress",
    "response.file_search_call.searching",
    "response.file_search_call.completed",
    "response.code_interpreter_call.in_progress",
    "response.code_interpreter_call.interpreting",
    "response.code_interpreter_call.completed",
    "response.code_interpreter_call_code.delta",
    "response.code_interpreter_call_code.done",
    "response.mcp_call.in_progress",
    "response.mcp_call.completed",
    "response.mcp_call.failed",
    "response.mcp_call_arguments.delta",
    "response.mcp_call_arguments.done",
    "response.mcp_list_tools.in_progress",
    "response.mcp_list_tools.completed",
    "response.mcp_list_tools.failed",
    "error",
];

const TERMINAL: &[&str] = &["response.completed", "response.incomplete", "response.failed", "error"];

/// The state of one stream's translation.
#[derive(Debug, Default)]
pub struct Translator {
    next_sequence: u64,
    response_id: Option<String>,
    finished: bool,
    calls: CallRestorer,
}

/// What became of one upstream frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Translated {
    /// What the client gets for the frame, in order (one, or more when a custom tool call's
    /// input is given at once: `tool_calls.rs`).
    Frames(Vec<SseFrame>),
    Dropped,
    /// The terminal event names another response than `response.created` did.
    Mismatch,
}

impl Translator {
    pub fn new() -> Self {
        Self::default()
    }

    /// A translator that gives calls of rewritten tools back their client shape.
    pub fn with_tools(tools: ToolMap) -> Self {
        Self { calls: CallRestorer::new(tools), ..Self::default() }
    }

    /// The terminal event was passed on.
    pub fn finished(&self) -> bool {
        self.finished
    }

    pub fn translate(&mut self, frame: &SseFrame) -> Translated {
        if self.finished || frame.is_comment() {
            return Translated::Dropped;
        }
        let Some(data) = frame.data() else { return Translated::Dropped };
        let Ok(Value::Object(mut event)) = serde_json::from_slice::<Value>(&data) else {
            return Translated::Dropped;
        };
        let kind = match event.get("type").and_then(Value::as_str) {
            Some(kind) => kind.to_owned(),
            None => match frame.event_name() {
                Some(name) => name.to_owned(),
                None => return Translated::Dropped,
            },
        };
        if !KNOWN.contains(&kind.as_str()) {
            return Translated::Dropped;
        }
        let id = event.get("response").and_then(|r| r.get("id")).and_then(Value::as_str).map(str::to_owned);
        let terminal = TERMINAL.contains(&kind.as_str());
        if kind == "response.created" {
            self.response_id = id;
        } else if terminal
            && kind != "error"
            && let (Some(created), Some(closing)) = (&self.response_id, &id)
            && created != closing
        {
            return Translated::Mismatch;
        }
        if kind == "error" || kind == "response.failed" {
            scrub_messages(&mut event);
        }
        if terminal {
            self.finished = true;
        }
        let frames: Vec<SseFrame> =
            self.calls.restore(&kind, event).into_iter().map(|(kind, event)| self.frame(&kind, event)).collect();
        if frames.is_empty() { Translated::Dropped } else { Translated::Frames(frames) }
    }

    /// `event` as a frame with its type and the next sequence number.
    fn frame(&mut self, kind: &str, mut event: serde_json::Map<String, Value>) -> SseFrame {
        event.insert("type".to_owned(), Value::String(kind.to_owned()));
        event.insert("sequence_number".to_owned(), Value::from(self.next_sequence));
        self.next_sequence += 1;
        let data = serde_json::to_vec(&Value::Object(event)).unwrap_or_default();
        SseFrame::from_event(kind, &data)
    }
}

/// `message` of an `error` event and of `response.error` in `response.failed`.
fn scrub_messages(event: &mut serde_json::Map<String, Value>) {
    let scrub_at = |value: Option<&mut Value>| {
        if let Some(Value::String(message)) = value {
            *message = scrub(message);
        }
    };
    scrub_at(event.get_mut("message"));
    if let Some(error) = event.get_mut("error") {
        scrub_at(error.get_mut("message"));
    }
    if let Some(error) = event.get_mut("response").and_then(|r| r.get_mut("error")) {
        scrub_at(error.get_mut("message"));
    }
}

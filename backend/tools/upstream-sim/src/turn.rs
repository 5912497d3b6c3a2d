//! One model turn in the Responses shape: what to answer (resolved from the directive and the
//! request) and the event sequence each upstream flavor streams for it.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use crate::ids::filler_bytes;
use crate::script::Directive;
use crate::template::{CREATED_SENTINEL, Framing, ID_SENTINEL, Template};

/// Default answer when nothing else is asked for.
pub const DEFAULT_TEXT: &str = "Hello from upstream-sim.";
const REASONING_SUMMARY: &str = "**Planning**\n\nThe simulator is thinking about the answer.";

/// Which upstream's event dialect to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// ChatGPT Codex backend: reasoning summaries, `gAAAA…` ciphertext.
    Codex,
    /// xAI: `ping` and `response.doom_loop_check` events, raw reasoning text, base64 ciphertext,
    /// `cost_in_usd_ticks`.
    Xai,
}

/// How the turn ends.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum End {
    Completed,
    Failed { code: String, message: String },
    Incomplete { reason: String },
}

/// Token counts reported in `usage`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cached: u64,
    pub reasoning: u64,
    pub cost_ticks: Option<u64>,
}

impl Usage {
    pub fn json(&self) -> Value {
        let mut usage = json!({
            "input_tokens": self.input,
            "input_tokens_details": {"cached_tokens": self.cached},
            "output_tokens": self.output,
            "output_tokens_details": {"reasoning_tokens": self.reasoning},
            "total_tokens": self.input + self.output,
        });
        if let Some(ticks) = self.cost_ticks {
            usage["cost_in_usd_ticks"] = json!(ticks);
        }
        usage
    }
}

/// A fully resolved turn: the cache key of its template.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TurnSpec {
    pub flavor: Flavor,
    pub model: String,
    pub store: bool,
    /// `generate: false`: `response.created` + `response.completed`, empty output.
    pub prewarm: bool,
    pub reasoning: bool,
    pub text: Option<String>,
    pub deltas: u32,
    /// `(name, JSON arguments)`.
    pub tool: Option<(String, String)>,
    pub end: End,
    pub usage: Usage,
    /// xAI `ping` / `response.doom_loop_check` events.
    pub xai_extras: bool,
    /// xAI: the account the reasoning ciphertext is sealed to (only it can replay it).
    pub cipher_owner: Option<String>,
}

impl TurnSpec {
    /// Resolves what to answer. `tool_output` is the output the request carries after its last
    /// user message (the second leg of a tool round trip).
    pub fn resolve(
        flavor: Flavor,
        model: &str,
        store: bool,
        directive: &Directive,
        tool_output: Option<&str>,
        prewarm: bool,
    ) -> Self {
        let (text, tool) = match (&directive.tool, tool_output) {
            (Some(_), Some(output)) => {
                let text = directive.final_text.clone().unwrap_or_else(|| {
                    let output: String = output.trim().chars().take(2_000).collect();
                    format!("tool output: {output}")
                });
                (Some(text), None)
            }
            (Some(name), None) => {
                (directive.text.clone(), Some((name.clone(), directive.args.clone().unwrap_or_else(|| "{}".into()))))
            }
            (None, _) => (Some(answer_text(directive)), None),
        };
        let deltas = match (&text, directive.events) {
            (None, _) => 0,
            (Some(text), Some(events)) => events.min(text.len() as u32).max(u32::from(!text.is_empty())),
            (Some(text), None) => 3.min(text.chars().count() as u32),
        };
        let reasoning = directive.reasoning.unwrap_or(false) && !prewarm;
        let text_tokens = text.as_ref().map_or(0, |t| t.len() as u64 / 4 + 1);
        let tool_tokens = tool.as_ref().map_or(0, |(_, args)| args.len() as u64 / 4 + 8);
        let reasoning_tokens = directive.reasoning_tokens.unwrap_or(if reasoning { 16 } else { 0 });
        let (input, output) = if prewarm {
            (0, 0)
        } else {
            (
                directive.input_tokens.unwrap_or(20),
                directive.output_tokens.unwrap_or(text_tokens + tool_tokens + reasoning_tokens),
            )
        };
        let cost_ticks = match flavor {
            Flavor::Codex => directive.cost_ticks,
            Flavor::Xai => Some(directive.cost_ticks.unwrap_or(input * 20_000 + output * 60_000)),
        };
        let end = if let Some(code) = &directive.fail {
            let message = directive.message.clone().unwrap_or_else(|| format!("Simulated failure: {code}"));
            End::Failed { code: code.clone(), message }
        } else if let Some(reason) = &directive.incomplete {
            End::Incomplete { reason: reason.clone() }
        } else {
            End::Completed
        };
        Self {
            flavor,
            model: model.to_owned(),
            store,
            prewarm,
            reasoning,
            text: if prewarm { None } else { text },
            deltas: if prewarm { 0 } else { deltas },
            tool: if prewarm { None } else { tool },
            end: if prewarm { End::Completed } else { end },
            xai_extras: flavor == Flavor::Xai && directive.xai_extras.unwrap_or(true) && !prewarm,
            cipher_owner: None,
            usage: Usage {
                input,
                output,
                cached: directive.cached_tokens.unwrap_or(0),
                reasoning: reasoning_tokens,
                cost_ticks,
            },
        }
    }

    /// The response id this spec's template carries (with the sentinel).
    fn response_id() -> String {
        format!("resp_{ID_SENTINEL}")
    }

    fn response(&self, status: &str, output: Value, usage: Value) -> Value {
        json!({
            "id": Self::response_id(),
            "object": "response",
            "created_at": CREATED_SENTINEL,
            "status": status,
            "background": false,
            "error": null,
            "incomplete_details": null,
            "instructions": null,
            "max_output_tokens": null,
            "model": self.model,
            "output": output,
            "parallel_tool_calls": true,
            "previous_response_id": null,
            "reasoning": {"effort": null, "summary": null},
            "store": self.store,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}},
            "tool_choice": "auto",
            "tools": [],
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage,
            "metadata": {},
        })
    }

    /// Builds the template: every event of the turn, serialized.
    pub fn build(&self) -> Template {
        let mut events = EventList::default();
        events.push("response.created", json!({"response": self.response("in_progress", json!([]), Value::Null)}));
        if self.xai_extras {
            events.push("ping", json!({}));
        }
        if !self.prewarm {
            events.push(
                "response.in_progress",
                json!({"response": self.response("in_progress", json!([]), Value::Null)}),
            );
        }
        let failed = matches!(self.end, End::Failed { .. });
        let mut output = Vec::new();
        if self.reasoning {
            output.push(self.reasoning_events(&mut events, output.len()));
        }
        if let Some(text) = &self.text {
            let item = message_events(&mut events, output.len(), text, self.deltas, failed);
            output.push(item);
        }
        if let Some((name, args)) = &self.tool
            && !failed
        {
            output.push(function_call_events(&mut events, output.len(), name, args));
        }
        if self.xai_extras {
            events.push("response.doom_loop_check", json!({"response_id": Self::response_id(), "looping": false}));
        }
        let output = Value::Array(output);
        let terminal = match &self.end {
            End::Completed => {
                let response = self.response("completed", output, self.usage.json());
                events.push("response.completed", json!({"response": response}));
                response
            }
            End::Incomplete { reason } => {
                let mut response = self.response("incomplete", output, self.usage.json());
                response["incomplete_details"] = json!({"reason": reason});
                events.push("response.incomplete", json!({"response": response}));
                response
            }
            End::Failed { code, message } => {
                let mut response = self.response("failed", json!([]), Value::Null);
                response["error"] = json!({"code": code, "message": message});
                events.push("response.failed", json!({"response": response}));
                response
            }
        };
        Template::build(&events.events, &terminal, Framing::Named)
    }

    fn reasoning_events(&self, events: &mut EventList, index: usize) -> Value {
        let id = format!("rs_{ID_SENTINEL}");
        match self.flavor {
            Flavor::Codex => {
                let ciphertext = format!("gAAAAAB{}", URL_SAFE_NO_PAD.encode(filler_bytes(192)));
                events.push(
                    "response.output_item.added",
                    json!({"output_index": index, "item": {"id": id, "type": "reasoning", "summary": [], "encrypted_content": null}}),
                );
                let base = json!({"item_id": id, "output_index": index, "summary_index": 0});
                events.push(
                    "response.reasoning_summary_part.added",
                    with(&base, "part", json!({"type": "summary_text", "text": ""})),
                );
                for piece in split(REASONING_SUMMARY, 2) {
                    events.push("response.reasoning_summary_text.delta", with(&base, "delta", json!(piece)));
                }
                events.push("response.reasoning_summary_text.done", with(&base, "text", json!(REASONING_SUMMARY)));
                events.push(
                    "response.reasoning_summary_part.done",
                    with(&base, "part", json!({"type": "summary_text", "text": REASONING_SUMMARY})),
                );
                let item = json!({"id": id, "type": "reasoning", "summary": [{"type": "summary_text", "text": REASONING_SUMMARY}], "encrypted_content": ciphertext});
                events.push("response.output_item.done", json!({"output_index": index, "item": item}));
                item
            }
            Flavor::Xai => {
                let ciphertext = match &self.cipher_owner {
                    Some(account) => crate::xai::reasoning::ciphertext(account),
                    None => crate::xai::reasoning::unowned_ciphertext(),
                };
                events.push(
                    "response.output_item.added",
                    json!({"output_index": index, "item": {"id": id, "type": "reasoning", "summary": [], "content": [], "status": "in_progress"}}),
                );
                let base = json!({"item_id": id, "output_index": index, "content_index": 0});
                events.push(
                    "response.content_part.added",
                    with(&base, "part", json!({"type": "reasoning_text", "text": ""})),
                );
                for piece in split(REASONING_SUMMARY, 2) {
                    events.push("response.reasoning_text.delta", with(&base, "delta", json!(piece)));
                }
                events.push("response.reasoning_text.done", with(&base, "text", json!(REASONING_SUMMARY)));
                events.push(
                    "response.content_part.done",
                    with(&base, "part", json!({"type": "reasoning_text", "text": REASONING_SUMMARY})),
                );
                let item = json!({
                    "id": id, "type": "reasoning", "status": "completed", "summary": [],
                    "content": [{"type": "reasoning_text", "text": REASONING_SUMMARY}],
                    "encrypted_content": ciphertext,
                });
                events.push("response.output_item.done", json!({"output_index": index, "item": item}));
                item
            }
        }
    }
}

fn answer_text(directive: &Directive) -> String {
    if let Some(text) = &directive.text {
        return text.clone();
    }
    match (directive.events, directive.bytes) {
        (Some(events), Some(bytes)) => filler_text(events as usize * bytes as usize),
        (None, Some(bytes)) => filler_text(bytes as usize),
        (Some(events), None) => filler_text(events as usize * 8),
        (None, None) => DEFAULT_TEXT.to_owned(),
    }
}

fn filler_text(len: usize) -> String {
    const WORDS: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ";
    WORDS.chars().cycle().take(len).collect()
}

/// Splits `text` into `parts` pieces of about equal length (on char boundaries).
pub fn split(text: &str, parts: u32) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() || parts == 0 {
        return Vec::new();
    }
    let size = chars.len().div_ceil(parts as usize).max(1);
    chars.chunks(size).map(|chunk| chunk.iter().collect()).collect()
}

fn with(base: &Value, key: &str, value: Value) -> Value {
    let mut out = base.clone();
    out[key] = value;
    out
}

fn message_events(events: &mut EventList, index: usize, text: &str, deltas: u32, failed: bool) -> Value {
    let id = format!("msg_{ID_SENTINEL}");
    let pieces = split(text, deltas);
    let shown: Vec<String> = if failed { pieces.iter().take(pieces.len() / 2).cloned().collect() } else { pieces };
    events.push(
        "response.output_item.added",
        json!({"output_index": index, "item": {"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}}),
    );
    let base = json!({"item_id": id, "output_index": index, "content_index": 0});
    events.push(
        "response.content_part.added",
        with(&base, "part", json!({"type": "output_text", "text": "", "annotations": []})),
    );
    for piece in &shown {
        let mut delta = with(&base, "delta", json!(piece));
        delta["logprobs"] = json!([]);
        events.push("response.output_text.delta", delta);
    }
    let item = json!({
        "id": id, "type": "message", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
    });
    if failed {
        return item;
    }
    let mut done = with(&base, "text", json!(text));
    done["logprobs"] = json!([]);
    events.push("response.output_text.done", done);
    events.push(
        "response.content_part.done",
        with(&base, "part", json!({"type": "output_text", "text": text, "annotations": []})),
    );
    events.push("response.output_item.done", json!({"output_index": index, "item": item}));
    item
}

fn function_call_events(events: &mut EventList, index: usize, name: &str, args: &str) -> Value {
    let id = format!("fc_{ID_SENTINEL}");
    let call_id = format!("call_{ID_SENTINEL}");
    events.push(
        "response.output_item.added",
        json!({"output_index": index, "item": {"id": id, "type": "function_call", "status": "in_progress", "call_id": call_id, "name": name, "arguments": ""}}),
    );
    events.push("response.function_call_arguments.delta", json!({"item_id": id, "output_index": index, "delta": args}));
    events.push(
        "response.function_call_arguments.done",
        json!({"item_id": id, "output_index": index, "name": name, "arguments": args}),
    );
    let item = json!({"id": id, "type": "function_call", "status": "completed", "call_id": call_id, "name": name, "arguments": args});
    events.push("response.output_item.done", json!({"output_index": index, "item": item}));
    item
}

/// Events with `type` and an increasing `sequence_number` filled in.
#[derive(Default)]
struct EventList {
    events: Vec<(String, Value)>,
}

impl EventList {
    fn push(&mut self, name: &str, mut payload: Value) {
        let mut event = serde_json::Map::new();
        event.insert("type".into(), json!(name));
        event.insert("sequence_number".into(), json!(self.events.len()));
        if let Value::Object(fields) = &mut payload {
            event.append(fields);
        }
        self.events.push((name.to_owned(), Value::Object(event)));
    }
}

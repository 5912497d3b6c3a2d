//! Per-request behaviour: the `sim:` directive, found in a request body, in `x-sim*` headers or
//! queued per account through the control API.
//!
//! Syntax: a line `sim: key=value key="quoted value" key='raw value'` anywhere in `instructions`
//! or in the text of an input message (any role but `assistant`). Later lines override earlier
//! keys; headers override the body; a queued account script overrides both. Double-quoted values
//! understand `\"` and `\\`; single-quoted values are taken verbatim (handy for JSON).

use http::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::edge::challenge::challenge_status;
use crate::edge::cookie::{check_cookie, set_cookies};
pub use crate::edge::page::Page;

/// Everything a request can ask the simulator to do. `None` = the default behaviour.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Directive {
    /// Fixed answer text.
    pub text: Option<String>,
    /// Number of `output_text.delta` events.
    pub events: Option<u32>,
    /// Bytes per delta when no `text` is given (filler text of `events * bytes` bytes).
    pub bytes: Option<u32>,
    /// Delay between events.
    pub delay_ms: Option<u64>,
    /// Delay before the response headers.
    pub header_delay_ms: Option<u64>,
    /// Delay after the headers, before the first event (slow first byte).
    pub first_byte_ms: Option<u64>,
    /// Emit a reasoning item first.
    pub reasoning: Option<bool>,
    /// Answer with a `function_call` of this name (e.g. `exec_command`) …
    pub tool: Option<String>,
    /// … with these JSON arguments (default `{}`).
    pub args: Option<String>,
    /// Answer text once the input carries the tool's output (default `tool output: <output>`).
    #[serde(rename = "final")]
    pub final_text: Option<String>,
    /// End with `response.failed` carrying this error code.
    pub fail: Option<String>,
    /// End with `response.incomplete` with this reason (`max_output_tokens`, `content_filter`).
    pub incomplete: Option<String>,
    /// Answer with this HTTP status (or a WebSocket error frame) instead of a stream.
    pub status: Option<u16>,
    /// Error code / type for `status` and `fail`.
    pub code: Option<String>,
    /// Error message for `status` and `fail`.
    pub message: Option<String>,
    /// `Retry-After` seconds on a scripted error.
    pub retry_after: Option<u64>,
    /// `Retry-After` as an HTTP-date this many seconds from now (wins over `retry_after`).
    pub retry_after_date: Option<u64>,
    /// Answer as Cloudflare's managed challenge with this status (403, 429 or 503), before the
    /// backend sees the request (`edge.rs`).
    pub challenge: Option<u16>,
    /// Answer `status` (default 502) with the page an edge shows for it instead of a JSON body.
    pub page: Option<Page>,
    /// `Set-Cookie` values added to the answer (sim syntax: several separated by `|`).
    pub set_cookie: Option<Vec<String>>,
    /// End the body cleanly after N events (no terminal event).
    pub cut_after: Option<u32>,
    /// Close the connection abruptly (FIN, no end of body / no close frame) after N events.
    pub drop_after: Option<u32>,
    /// Reset the TCP connection (RST) after N events.
    pub reset_after: Option<u32>,
    /// Send N events, then nothing more ever (connection held open) until the client goes away.
    pub stall_after: Option<u32>,
    /// Read (and record) the request, then reset the TCP connection without a response byte.
    pub reset_before_head: Option<bool>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
    /// xAI `usage.cost_in_usd_ticks`.
    pub cost_ticks: Option<u64>,
    /// xAI only: emit the `ping` and `response.doom_loop_check` events (default true). The
    /// OpenAI Node SDK's stream helper rejects them, so a gateway must drop them.
    pub xai_extras: Option<bool>,
}

impl Directive {
    /// Parses the part after `sim:` (e.g. `events=100 delay_ms=10`).
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut directive = Self::default();
        directive.parse_into(spec)?;
        Ok(directive)
    }

    fn parse_into(&mut self, spec: &str) -> Result<(), String> {
        let mut chars = spec.chars().peekable();
        loop {
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
            if chars.peek().is_none() {
                return Ok(());
            }
            let mut key = String::new();
            while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
                key.push(c);
            }
            if chars.next() != Some('=') {
                return Err(format!("expected key=value, found `{key}`"));
            }
            let value = match chars.peek() {
                Some('\'') => {
                    chars.next();
                    let mut value = String::new();
                    loop {
                        match chars.next() {
                            Some('\'') => break,
                            Some(c) => value.push(c),
                            None => return Err(format!("unterminated ' in `{key}`")),
                        }
                    }
                    value
                }
                Some('"') => {
                    chars.next();
                    let mut value = String::new();
                    loop {
                        match chars.next() {
                            Some('"') => break,
                            Some('\\') => match chars.next() {
                                Some('n') => value.push('\n'),
                                Some(c) => value.push(c),
                                None => return Err(format!("unterminated \" in `{key}`")),
                            },
                            Some(c) => value.push(c),
                            None => return Err(format!("unterminated \" in `{key}`")),
                        }
                    }
                    value
                }
                _ => {
                    let mut value = String::new();
                    while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                        value.push(c);
                    }
                    value
                }
            };
            self.set(&key, value)?;
        }
    }

    /// Sets one key (names as in the `sim:` syntax; `-` and `_` are interchangeable).
    pub fn set(&mut self, key: &str, value: String) -> Result<(), String> {
        fn num<T: std::str::FromStr>(key: &str, value: &str) -> Result<Option<T>, String> {
            value.parse().map(Some).map_err(|_| format!("`{key}` needs a number, got `{value}`"))
        }
        let flag = |value: &str| matches!(value, "1" | "true" | "yes" | "on");
        match key.replace('-', "_").as_str() {
            "text" => self.text = Some(value),
            "events" => self.events = num(key, &value)?,
            "bytes" => self.bytes = num(key, &value)?,
            "delay_ms" => self.delay_ms = num(key, &value)?,
            "header_delay_ms" => self.header_delay_ms = num(key, &value)?,
            "first_byte_ms" => self.first_byte_ms = num(key, &value)?,
            "reasoning" => self.reasoning = Some(flag(&value)),
            "tool" => self.tool = Some(value),
            "args" => {
                serde_json::from_str::<Value>(&value).map_err(|e| format!("`args` is not JSON: {e}"))?;
                self.args = Some(value);
            }
            "final" => self.final_text = Some(value),
            "fail" => self.fail = Some(value),
            "incomplete" => self.incomplete = Some(value),
            "status" => self.status = num(key, &value)?,
            "code" => self.code = Some(value),
            "message" => self.message = Some(value),
            "retry_after" => self.retry_after = num(key, &value)?,
            "retry_after_date" => self.retry_after_date = num(key, &value)?,
            "challenge" => self.challenge = Some(challenge_status(&value)?),
            "page" => self.page = Some(Page::parse(&value)?),
            "set_cookie" => self.set_cookie = Some(set_cookies(&value)?),
            "cut_after" => self.cut_after = num(key, &value)?,
            "drop_after" => self.drop_after = num(key, &value)?,
            "reset_after" => self.reset_after = num(key, &value)?,
            "stall_after" => self.stall_after = num(key, &value)?,
            "reset_before_head" => self.reset_before_head = Some(flag(&value)),
            "input_tokens" => self.input_tokens = num(key, &value)?,
            "output_tokens" => self.output_tokens = num(key, &value)?,
            "cached_tokens" => self.cached_tokens = num(key, &value)?,
            "reasoning_tokens" => self.reasoning_tokens = num(key, &value)?,
            "cost_ticks" => self.cost_ticks = num(key, &value)?,
            "xai_extras" => self.xai_extras = Some(flag(&value)),
            other => return Err(format!("unknown sim directive key `{other}`")),
        }
        Ok(())
    }

    /// `self` with every field that `over` sets replaced.
    pub fn overlay(mut self, over: &Directive) -> Self {
        macro_rules! take {
            ($($field:ident),*) => { $( if over.$field.is_some() { self.$field = over.$field.clone(); } )* };
        }
        take!(
            text,
            events,
            bytes,
            delay_ms,
            header_delay_ms,
            first_byte_ms,
            reasoning,
            tool,
            args,
            final_text,
            fail,
            incomplete,
            status,
            code,
            message,
            retry_after,
            retry_after_date,
            challenge,
            page,
            set_cookie,
            cut_after,
            drop_after,
            reset_after,
            stall_after,
            reset_before_head,
            input_tokens,
            output_tokens,
            cached_tokens,
            reasoning_tokens,
            cost_ticks,
            xai_extras
        );
        self
    }

    /// True when nothing is set.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Checks the values the `sim:` syntax checks when they came as JSON (a control-API script).
    pub fn check(&self) -> Result<(), String> {
        if let Some(status) = self.challenge {
            challenge_status(&status.to_string())?;
        }
        for cookie in self.set_cookie.iter().flatten() {
            check_cookie(cookie)?;
        }
        Ok(())
    }

    /// Whether the edge answers this request itself (challenge, edge page, reset before the
    /// head), before the backend looks at it.
    pub fn acts_at_edge(&self) -> bool {
        self.challenge.is_some() || self.page.is_some() || self.reset_before_head == Some(true)
    }

    /// The first key set that only the Codex backend's edge serves (`challenge`, `page`,
    /// `set_cookie`, `reset_before_head`); the xAI routes refuse them.
    pub fn codex_only_key(&self) -> Option<&'static str> {
        [
            (self.challenge.is_some(), "challenge"),
            (self.page.is_some(), "page"),
            (self.set_cookie.is_some(), "set_cookie"),
            (self.reset_before_head.is_some(), "reset_before_head"),
        ]
        .into_iter()
        .find_map(|(set, key)| set.then_some(key))
    }

    /// The `Retry-After` value asked for: an HTTP-date (`retry_after_date`) or seconds.
    pub fn retry_after_value(&self) -> Option<String> {
        match (self.retry_after_date, self.retry_after) {
            (Some(seconds), _) => Some(crate::ids::http_date(crate::ids::now_unix() + seconds)),
            (None, Some(seconds)) => Some(seconds.to_string()),
            (None, None) => None,
        }
    }

    /// Reads every `sim:` line of `text` into `self`.
    fn scan_text(&mut self, text: &str) -> Result<(), String> {
        if !text.contains("sim:") {
            return Ok(());
        }
        for line in text.lines() {
            if let Some(spec) = line.trim_start().strip_prefix("sim:") {
                self.parse_into(spec)?;
            }
        }
        Ok(())
    }

    /// Directive from a Responses body (`instructions` and non-assistant `input` messages) or a
    /// Chat Completions body (`messages`).
    pub fn from_body(body: &Value) -> Result<Self, String> {
        let mut directive = Self::default();
        if let Some(text) = body.get("instructions").and_then(Value::as_str) {
            directive.scan_text(text)?;
        }
        match body.get("input") {
            Some(Value::String(text)) => directive.scan_text(text)?,
            Some(Value::Array(items)) => {
                for item in items {
                    directive.scan_message(item)?;
                }
            }
            _ => {}
        }
        if let Some(Value::Array(messages)) = body.get("messages") {
            for message in messages {
                directive.scan_message(message)?;
            }
        }
        Ok(directive)
    }

    fn scan_message(&mut self, item: &Value) -> Result<(), String> {
        let is_message = item.get("type").is_none_or(|t| t == "message");
        let role = item.get("role").and_then(Value::as_str).unwrap_or("");
        if !is_message || role == "assistant" || role == "tool" {
            return Ok(());
        }
        match item.get("content") {
            Some(Value::String(text)) => self.scan_text(text),
            Some(Value::Array(parts)) => {
                for part in parts {
                    if let Some(text) = part.get("text").and_then(Value::as_str) {
                        self.scan_text(text)?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Directive from `x-sim` (whole directive) and `x-sim-<key>` headers.
    pub fn from_headers(headers: &HeaderMap) -> Result<Self, String> {
        let mut directive = Self::default();
        for (name, value) in headers {
            let Some(rest) = name.as_str().strip_prefix("x-sim") else { continue };
            let value = value.to_str().map_err(|_| format!("header {name} is not text"))?;
            if rest.is_empty() {
                directive.parse_into(value.trim_start().strip_prefix("sim:").unwrap_or(value))?;
            } else if let Some(key) = rest.strip_prefix('-') {
                directive.set(key, value.to_owned())?;
            }
        }
        Ok(directive)
    }
}

/// The tool output a request carries after its last user message (a tool round trip's second
/// leg), as text.
pub fn tool_output_after_last_user(body: &Value) -> Option<String> {
    let items = body.get("input").and_then(Value::as_array).or_else(|| body.get("messages")?.as_array())?;
    let last_user = items.iter().rposition(|item| item.get("role").and_then(Value::as_str) == Some("user"));
    let after = match last_user {
        Some(index) => &items[index + 1..],
        None => &items[..],
    };
    after.iter().rev().find_map(|item| {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        let is_output = matches!(kind, "function_call_output" | "custom_tool_call_output")
            || item.get("role").and_then(Value::as_str) == Some("tool");
        if !is_output {
            return None;
        }
        let output = item.get("output").or_else(|| item.get("content"))?;
        Some(match output {
            Value::String(text) => text.clone(),
            Value::Array(parts) => {
                parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
            }
            other => other.to_string(),
        })
    })
}

/// The directive of one request: body, overridden by headers, overridden by a queued script.
pub fn for_request(body: &Value, headers: &HeaderMap, queued: Option<Directive>) -> Result<Directive, String> {
    let mut directive = Directive::from_body(body)?.overlay(&Directive::from_headers(headers)?);
    if let Some(queued) = queued {
        directive = directive.overlay(&queued);
    }
    Ok(directive)
}

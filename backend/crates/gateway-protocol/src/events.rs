//! Canonical stream events: what kind of event a frame carries and the facts the gateway reads
//! from it (response id, terminal state, usage, error code). Only lifecycle events are parsed;
//! deltas are classified by name and forwarded untouched.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::usage::Usage;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Created,
    InProgress,
    OutputItemAdded,
    OutputItemDone,
    /// Any text, reasoning, arguments or other delta / part event.
    Content,
    Completed,
    Incomplete,
    Failed,
    /// An in-stream `error` event.
    Error,
    /// `codex.rate_limits`: a gateway-internal frame, consumed and not forwarded.
    CodexRateLimits,
    /// `codex.response.metadata`: a gateway-internal frame, consumed and not forwarded.
    CodexMetadata,
    /// A comment or keep-alive frame (`: ping`).
    Comment,
    Other,
}

impl EventKind {
    /// Classifies an event `type` (the SSE `event:` name or the JSON `type`).
    pub fn from_type(name: &str) -> Self {
        match name {
            "response.created" => Self::Created,
            "response.in_progress" => Self::InProgress,
            "response.output_item.added" => Self::OutputItemAdded,
            "response.output_item.done" => Self::OutputItemDone,
            "response.completed" => Self::Completed,
            "response.incomplete" => Self::Incomplete,
            "response.failed" => Self::Failed,
            "error" => Self::Error,
            "codex.rate_limits" => Self::CodexRateLimits,
            "codex.response.metadata" => Self::CodexMetadata,
            other if other.starts_with("response.") => Self::Content,
            _ => Self::Other,
        }
    }

    /// Ends the response (no event of the same response follows).
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Incomplete | Self::Failed | Self::Error)
    }

    /// Frames the gateway consumes instead of forwarding.
    pub fn is_internal(self) -> bool {
        matches!(self, Self::CodexRateLimits | Self::CodexMetadata)
    }

    /// Carries facts the gateway reads (ids, usage, errors).
    pub fn has_facts(self) -> bool {
        matches!(self, Self::Created | Self::Completed | Self::Incomplete | Self::Failed | Self::Error)
    }
}

/// How a response ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerminalStatus {
    Completed,
    Incomplete,
    Failed,
}

/// Facts read from a lifecycle event.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventFacts {
    pub response_id: Option<String>,
    pub status: Option<String>,
    pub model: Option<String>,
    pub service_tier: Option<String>,
    pub usage: Option<Usage>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    pub incomplete_reason: Option<String>,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    response: Option<&'a RawValue>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct ResponseObject {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    service_tier: Option<String>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    error: Option<ErrorObject>,
    #[serde(default)]
    incomplete_details: Option<IncompleteDetails>,
}

#[derive(Deserialize, Default)]
struct ErrorObject {
    #[serde(default)]
    code: Option<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize, Default)]
struct IncompleteDetails {
    #[serde(default)]
    reason: Option<String>,
}

/// The JSON `type` of an event payload, for frames without an `event:` line.
pub fn event_type(data: &[u8]) -> Option<String> {
    serde_json::from_slice::<Envelope<'_>>(data).ok()?.kind.map(|k| k.into_owned())
}

/// Reads the facts of a lifecycle event payload. Malformed payloads give empty facts: facts
/// are observations, never a reason to alter what the client receives.
pub fn read_facts(data: &[u8]) -> EventFacts {
    let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(data) else {
        return EventFacts::default();
    };
    let mut facts = EventFacts::default();
    if let Some(raw) = envelope.response
        && let Ok(response) = serde_json::from_str::<ResponseObject>(raw.get())
    {
        facts.response_id = response.id;
        facts.status = response.status;
        facts.model = response.model;
        facts.service_tier = response.service_tier;
        facts.usage = response.usage;
        if let Some(error) = response.error {
            facts.error_code = error.code.or(error.kind);
            facts.error_message = error.message;
        }
        facts.incomplete_reason = response.incomplete_details.and_then(|d| d.reason);
    }
    if let Some(raw) = envelope.error
        && let Ok(error) = serde_json::from_str::<ErrorObject>(raw.get())
    {
        facts.error_code = facts.error_code.or(error.code).or(error.kind);
        facts.error_message = facts.error_message.or(error.message);
    }
    facts.error_code = facts.error_code.or(envelope.code);
    facts.error_message = facts.error_message.or(envelope.message);
    facts
}

//! The Codex turn the gateway originates for a client that is not Codex (issue 33, decision
//! 0330). The gateway presents itself upstream as the pinned Codex (`request_profile.rs`); a
//! Codex user agent on a request that has none of the headers and fields Codex always sends is
//! itself a fingerprint. For an OpenAI SDK (or Chat Completions, or any non-Codex) client's turn
//! the gateway adds what Codex sends and what changes nothing the client sees in its answer:
//!
//! - headers (`codex_turn/headers.rs`): `x-codex-beta-features`, `x-codex-window-id`,
//!   `x-codex-turn-metadata`, `x-codex-routing-hint`, `x-client-request-id`, `session-id`,
//!   `thread-id`, and `content-encoding: zstd` with the body compressed
//!   (`request_compression.rs`);
//! - body fields (`codex_turn/body.rs`): `prompt_cache_key`, `client_metadata`, `include: []`
//!   (no reasoning asked for), and beside the client's own tools `tool_choice: "auto"` and
//!   `parallel_tool_calls: true` (the API's defaults).
//!
//! Never added: `instructions`, developer messages, tools, `reasoning`, `text` — anything the
//! model reads. A request that carries Codex's own headers or `client_metadata` is Codex's and
//! goes as it came ([`is_codex_request`]); compaction calls are left alone too.
//!
//! The ids are minted per account ([`AccountIdentity::minted_id`]): the conversation id (session,
//! thread, client request id and `prompt_cache_key`, equal as in Codex) from the client's own
//! conversation signal — the `session_id` header, else `prompt_cache_key`, else
//! `conversation_id`, the signals the gateway's session affinity reads — scoped by client key,
//! so one SDK conversation keeps one upstream conversation on an account; without a signal, from
//! the request (every attempt of a request alike). The turn id comes from the request.

pub mod body;
pub mod headers;
pub mod metadata;

use bytes::Bytes;
use gateway_core::provider::{Operation, UpstreamCall};
use gateway_protocol::request::{RequestBody, SplicedBody};
use http::HeaderMap;
use time::OffsetDateTime;

use crate::identity::AccountIdentity;

/// Header names whose presence makes a request Codex's own (besides every `x-codex-*`).
const CODEX_SESSION_HEADERS: &[&str] = &["session-id", "thread-id"];

/// One originated turn's identifiers, as the serving account presents them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexTurn {
    /// Session id, thread id, client request id and `prompt_cache_key` (one value, as Codex).
    pub conversation: String,
    pub turn_id: String,
    pub context_window_id: String,
    /// The serving account's installation id.
    pub installation_id: String,
    /// The upstream model.
    pub model: String,
    pub started_at_unix_ms: i64,
    /// The `x-codex-turn-metadata` JSON (header and `client_metadata` member alike).
    pub turn_metadata: String,
}

impl CodexTurn {
    /// The turn to originate for `call`; `None` when the request is Codex's own (or a
    /// compaction), which goes as the client sent it.
    pub fn for_call(call: &UpstreamCall<'_>, identity: &AccountIdentity, now: OffsetDateTime) -> Option<Self> {
        if call.operation == Operation::ResponsesCompact || is_codex_request(call.client_headers, call.view) {
            return None;
        }
        let conversation_seed = match conversation_signal(call.client_headers, call.body, call.view) {
            Some(signal) => format!("client conversation\0{}\0{signal}", call.client_key),
            None => format!("request conversation\0{}", call.request),
        };
        let mut turn = Self {
            conversation: identity.minted_id(&conversation_seed),
            turn_id: identity.minted_id(&format!("turn\0{}", call.request)),
            context_window_id: identity.minted_id(&format!("context window\0{conversation_seed}")),
            installation_id: identity.installation_id.clone(),
            model: call.upstream_model.to_owned(),
            started_at_unix_ms: i64::try_from(now.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX),
            turn_metadata: String::new(),
        };
        turn.turn_metadata = turn.metadata_json();
        Some(turn)
    }

    /// Codex's window id: the thread's first context window.
    pub fn window_id(&self) -> String {
        format!("{}:0", self.conversation)
    }
}

/// Whether the client is Codex: it sent an `x-codex-*`, `session-id` or `thread-id` header or a
/// `client_metadata` body field. A lone `session_id` header (an SDK user's affinity signal) does
/// not make a request Codex's.
pub fn is_codex_request(client_headers: &[(String, Bytes)], view: &RequestBody) -> bool {
    view.has("client_metadata")
        || client_headers
            .iter()
            .any(|(name, _)| name.starts_with("x-codex-") || CODEX_SESSION_HEADERS.contains(&name.as_str()))
}

/// The client's own conversation signal, trimmed: the `session_id` header, else the top-level
/// `prompt_cache_key`, else `conversation_id` (the order of the engine's session affinity).
pub fn conversation_signal(client_headers: &[(String, Bytes)], body: &[u8], view: &RequestBody) -> Option<String> {
    let header = client_headers
        .iter()
        .find(|(name, _)| name == "session_id")
        .and_then(|(_, value)| std::str::from_utf8(value).ok())
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .map(str::to_owned);
    header.or_else(|| {
        ["prompt_cache_key", "conversation_id"].into_iter().find_map(|field| {
            let value = view.string(body, field).ok().flatten()?;
            let value = value.trim();
            (!value.is_empty()).then(|| value.to_owned())
        })
    })
}

/// The headers and body as they go upstream: for an originated turn, the body compressed (sent
/// uncompressed, without the header, if compression fails) and the turn's headers in Codex's
/// order; otherwise both as they are.
pub async fn outbound(turn: Option<&CodexTurn>, headers: HeaderMap, body: SplicedBody) -> (HeaderMap, SplicedBody) {
    let Some(turn) = turn else { return (headers, body) };
    match crate::request_compression::compress(&body).await {
        Ok(compressed) => (turn.headers(headers, true), SplicedBody::from(compressed)),
        Err(error) => {
            tracing::warn!(%error, "the request body could not be compressed; sent as it is");
            (turn.headers(headers, false), body)
        }
    }
}

//! Grok compaction (PROTOCOL H.1, H.6; decision 0269): `POST {api}/responses/compact` on the
//! public API host (`providers.xai.api_url`, api.x.ai) with the account's OAuth token — the Grok
//! CLI proxy answers 404 there. The body is the client's, edited as [CLI] does (no `stream`,
//! `store`, tools or sampling fields, no trailing `compaction_trigger` item, identity and
//! account-bound fields dropped, the model mapped, reasoning items made portable); the JSON
//! answer becomes one `response.completed` frame (`gateway_protocol::unary`), so the engine's
//! non-stream path records and prices it like any response.

use std::time::{Duration, Instant};

use gateway_core::provider::{AttemptFailure, FrameStream, StreamFailure, UpstreamCall, UpstreamEvent, UpstreamReply};
use gateway_transport::HttpResponse;
use serde_json::{Value, json};

use crate::credential::XaiCredential;
use crate::request::{DROPPED, IDENTITY_KEYS, NormalizationError, edit_input, refuse};
use crate::transport::{Answer, Head, Transport, normalization_failure};

/// Largest compaction answer read.
pub const MAX_COMPACT_BODY: usize = 16 << 20;

/// Fields [CLI] removes before compacting, besides those never sent upstream.
const NOT_COMPACTED: &[&str] = &[
    "stream",
    "store",
    "include",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "max_output_tokens",
    "temperature",
    "top_p",
    "top_k",
    "stop",
    "prompt_cache_key",
    "reasoning_effort",
    "reasoningEffort",
];

/// The compaction body for `upstream_model`.
pub fn body(client: &[u8], upstream_model: &str) -> Result<Vec<u8>, NormalizationError> {
    let value: Value = serde_json::from_slice(client).map_err(|_| refuse("body", "not a JSON object"))?;
    let Value::Object(mut map) = value else { return Err(refuse("body", "not a JSON object")) };
    for field in DROPPED.iter().chain(NOT_COMPACTED) {
        map.remove(*field);
    }
    map.insert("model".to_owned(), json!(upstream_model));
    if let Some(Value::Object(metadata)) = map.get_mut("metadata") {
        for key in IDENTITY_KEYS {
            metadata.remove(*key);
        }
    }
    match map.get_mut("input") {
        Some(Value::Array(items)) => {
            if items.last().and_then(|i| i.get("type")).and_then(Value::as_str) == Some("compaction_trigger") {
                items.pop();
            }
        }
        Some(Value::String(text)) => {
            let message = json!([{"type": "message", "role": "user", "content": text.clone()}]);
            map.insert("input".to_owned(), message);
        }
        _ => return Err(refuse("input", "compaction needs the conversation as `input`")),
    }
    edit_input(&mut map, &crate::tools::ToolMap::default());
    serde_json::to_vec(&Value::Object(map)).map_err(|_| refuse("body", "cannot be encoded"))
}

impl Transport {
    /// One compaction call; returns at the answer's headers.
    pub async fn compact(
        &self,
        call: &UpstreamCall<'_>,
        credential: &XaiCredential,
        upstream_model: &str,
    ) -> Result<UpstreamReply, AttemptFailure> {
        let body = body(call.body, upstream_model).map_err(normalization_failure)?;
        let version = self.version().current();
        let head = Head { call, credential, model: upstream_model, session: None, version: &version };
        let started = Instant::now();
        let response = match self.post(&self.compact_url, &head, body, "application/json").await? {
            Answer::Stream(response) => *response,
            Answer::Refused { status, body, retry_after, source } => {
                return Err(self.refused(status, &body, retry_after, source, &version));
            }
        };
        Ok(UpstreamReply {
            frames: frames(response, self.stream_idle_timeout),
            quota: None,
            served_model: Some(upstream_model.to_owned()),
            forward_headers: Vec::new(),
            connect_time: None,
            headers_time: started.elapsed(),
            transport: gateway_core::domain::Transport::Http,
        })
    }
}

/// The JSON answer as one `response.completed` frame.
fn frames(response: HttpResponse, idle: Duration) -> FrameStream {
    Box::pin(futures_util::stream::once(async move {
        let read = tokio::time::timeout(idle, response.prefix(MAX_COMPACT_BODY)).await;
        let body =
            read.map_err(|_| StreamFailure { message: "the compaction answer went idle".into(), idle_timeout: true })?;
        let frame = gateway_protocol::unary::completed_frame(&body)
            .map_err(|message| StreamFailure { message: message.to_owned(), idle_timeout: false })?;
        Ok(UpstreamEvent::Frame(frame))
    }))
}

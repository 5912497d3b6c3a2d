//! Unary compaction: `POST {backend}/codex/responses/compact` (PROTOCOL §D.3). The request is a
//! Responses body without `stream`/`store`; the answer is one JSON object (`{"output":[…]}`),
//! which the provider yields as one synthetic `response.completed` frame so the engine's
//! non-stream path (aggregation, accounting, the request row) serves it like any response. The
//! API layer turns the aggregated object back into the backend's answer.

use std::time::Duration;

use bytes::Bytes;
use gateway_core::provider::{FrameStream, StreamFailure, UpstreamEvent};
use gateway_protocol::request::{BodyEdit, RequestBody, SplicedBody};
use gateway_transport::HttpResponse;

use crate::identity::AccountIdentity;
use crate::transport::{BARE_INPUT_PREFIX, BARE_INPUT_SUFFIX, UNSUPPORTED_PARAMETERS};

/// Largest compaction answer read.
pub const MAX_COMPACT_BODY: usize = 16 << 20;

/// The compaction body: the client's bytes but for the model mapping and what the backend
/// refuses (streaming and storage fields, refused parameters).
pub fn body(body: &Bytes, view: &RequestBody, upstream_model: &str, identity: &AccountIdentity) -> SplicedBody {
    let raw: &[u8] = body;
    let mut edit = BodyEdit::new();
    if view.string(raw, "model").ok().flatten().as_deref() != Some(upstream_model) {
        edit.set_string("model", upstream_model);
    }
    for parameter in UNSUPPORTED_PARAMETERS.iter().chain(&["stream", "store", "previous_response_id"]) {
        if view.has(parameter) {
            edit.remove(parameter);
        }
    }
    if let Some(input) = view.raw(raw, "input")
        && input.first() == Some(&b'"')
    {
        edit.wrap("input", BARE_INPUT_PREFIX, BARE_INPUT_SUFFIX);
    }
    identity.edit_body(raw, view, &mut edit);
    edit.splice(body, view)
}

/// The answer as one `response.completed` frame carrying the backend's object.
pub fn frames(response: HttpResponse, idle: Duration) -> FrameStream {
    Box::pin(futures_util::stream::once(async move {
        let read = tokio::time::timeout(idle, response.prefix(MAX_COMPACT_BODY)).await;
        let failure = |message: &str| StreamFailure { message: message.to_owned(), idle_timeout: false };
        let body =
            read.map_err(|_| StreamFailure { message: "the compaction answer went idle".into(), idle_timeout: true })?;
        let frame = gateway_protocol::unary::completed_frame(&body).map_err(failure)?;
        Ok(UpstreamEvent::Frame(frame))
    }))
}

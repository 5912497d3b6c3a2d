//! The decode phase: the parts of the body the gateway acts on (`model`, `stream`,
//! `previous_response_id`) and the explicit session signal; the rest of the body stays opaque
//! bytes.

use bytes::Bytes;
use gateway_protocol::request::{GATEWAY_KEYS, RequestBody};
use gateway_protocol::{ApiError, ErrorCode};

use crate::coordination::{SessionSignal, SignalSource};

/// What the decode phase read from the body.
pub struct Decoded {
    /// The top level of the body as byte ranges.
    pub view: RequestBody,
    pub model: String,
    pub stream: bool,
    pub previous: Option<String>,
}

pub fn decode(body: &Bytes) -> Result<Decoded, ApiError> {
    let view = RequestBody::parse(body).map_err(|e| ApiError::new(ErrorCode::InvalidJson, e.to_string()))?;
    // The gateway and the upstream must read the same value of every key the gateway acts on.
    if let Some(key) = view.duplicate(GATEWAY_KEYS) {
        let message = format!("The request body holds the top-level key '{key}' more than once; send it once.");
        return Err(ApiError::new(ErrorCode::InvalidRequest, message).with_param(key));
    }
    let model = match view.string(body, "model") {
        Ok(Some(model)) if !model.is_empty() => model,
        Ok(_) => {
            return Err(
                ApiError::new(ErrorCode::InvalidRequest, "Missing required parameter: 'model'.").with_param("model")
            );
        }
        Err(error) => return Err(ApiError::new(ErrorCode::InvalidRequest, error.to_string()).with_param("model")),
    };
    let invalid =
        |error: gateway_protocol::request::BodyError| ApiError::new(ErrorCode::InvalidRequest, error.to_string());
    let stream = view.boolean(body, "stream").map_err(invalid)?.unwrap_or(false);
    let previous = view.string(body, "previous_response_id").map_err(invalid)?.filter(|p| !p.is_empty());
    Ok(Decoded { view, model, stream, previous })
}

/// The explicit session signal, if the client sent one: the `session_id` header, else the
/// top-level `prompt_cache_key`, else `conversation_id`.
pub fn session_signal(headers: &[(String, Bytes)], body: &[u8], view: &RequestBody) -> Option<SessionSignal> {
    let header = headers.iter().find(|(name, _)| name == "session_id" || name == "session-id");
    if let Some((_, value)) = header
        && let Ok(signal) = SessionSignal::parse(SignalSource::SessionHeader, value)
    {
        return Some(signal);
    }
    for (field, source) in
        [("prompt_cache_key", SignalSource::PromptCacheKey), ("conversation_id", SignalSource::ConversationId)]
    {
        if let Ok(Some(value)) = view.string(body, field)
            && let Ok(signal) = SessionSignal::parse(source, value.as_bytes())
        {
            return Some(signal);
        }
    }
    None
}

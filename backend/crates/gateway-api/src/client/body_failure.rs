//! Why a request body could not be read, in the client's terms: over the limit (413), silent
//! past the server's body-read deadline (408), or anything else — broken chunked framing, a
//! connection that ended early — the request's own fault (400). Never an account's.

use gateway_protocol::{ApiError, ErrorCode};

pub fn too_large(limit: usize) -> ApiError {
    ApiError::new(ErrorCode::RequestTooLarge, format!("The request body exceeds the limit of {limit} bytes."))
}

/// Classifies a body read error by walking its causes.
pub fn classify(error: &(dyn std::error::Error + 'static), limit: usize) -> ApiError {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.is::<http_body_util::LengthLimitError>() {
            return too_large(limit);
        }
        if error.is::<tower_http::timeout::TimeoutError>() {
            return ApiError::new(
                ErrorCode::RequestTimeout,
                "The request body stopped arriving; send it without pauses.",
            );
        }
        cause = error.source();
    }
    ApiError::new(
        ErrorCode::InvalidRequest,
        "The request body could not be read: its framing is malformed or the connection ended early.",
    )
}

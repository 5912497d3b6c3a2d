//! The errors a client gets when the coordination store fails or the engine breaks an invariant
//! (the pool's refusal is `pool_refusal.rs`).

use gateway_protocol::{ApiError, ErrorCode};

use crate::coordination::{CoordinationError, CoordinationErrorKind};

pub(crate) fn coordination_error(error: CoordinationError) -> ApiError {
    tracing::warn!(%error, "coordination failed; refusing the request");
    match error.kind() {
        CoordinationErrorKind::Unavailable => ApiError::new(
            ErrorCode::CoordinationUnavailable,
            "The gateway's coordination store is unavailable; try again shortly.",
        )
        .with_retry_after(5),
        CoordinationErrorKind::Internal => internal_error(),
    }
}

pub(super) fn internal_error() -> ApiError {
    ApiError::new(ErrorCode::InternalError, "internal error")
}

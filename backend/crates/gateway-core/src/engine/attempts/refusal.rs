//! The errors a client gets when the attempts end without an upstream that accepted.

use gateway_protocol::{ApiError, ErrorCode};

use crate::coordination::{CoordinationError, CoordinationErrorKind, NoAccount};

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

pub(super) fn no_account_error() -> ApiError {
    ApiError::new(ErrorCode::NoAvailableAccount, "No account is available to serve this request right now.")
        .with_retry_after(30)
}

pub(super) fn no_account_for(none: &NoAccount) -> ApiError {
    let retry = none
        .all_cooling_down_until()
        .map(|until| (until.0.saturating_sub(none.now.0)).div_ceil(1000).max(1))
        .unwrap_or(5);
    ApiError::new(ErrorCode::NoAvailableAccount, "Every account that could serve this request is busy or cooling down.")
        .with_retry_after(retry)
}

/// The error the client sees when failover runs out after `failure`.
pub(super) fn failure_error(failure: &crate::provider::AttemptFailure) -> ApiError {
    match &failure.class {
        crate::provider::FailureClass::Rejected(error) => (**error).clone(),
        _ => no_account_error(),
    }
}

pub(super) fn internal_error() -> ApiError {
    ApiError::new(ErrorCode::InternalError, "internal error")
}

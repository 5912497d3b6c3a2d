//! The one error type of every coordination port, with a stable kind for the client error table.

use std::time::Duration;

/// Why a coordination call failed. Protected acquire paths fail closed on any of these: the
/// request is refused, never sent without its slot.
#[derive(Debug, thiserror::Error)]
pub enum CoordinationError {
    /// The store cannot be reached (refused, reset, dropped connection).
    #[error("coordination store unavailable: {0}")]
    Unavailable(String),
    /// The store did not answer within the configured time.
    #[error("coordination store did not answer within {0:?}")]
    Timeout(Duration),
    /// The store answered something the adapter does not understand (a script/adapter bug or a
    /// foreign value under our key prefix).
    #[error("coordination store returned an unexpected reply: {0}")]
    Protocol(String),
    /// The caller passed a value the store cannot represent (empty candidate list, bad prefix).
    #[error("invalid coordination input: {0}")]
    InvalidInput(String),
}

/// Stable classification of [`CoordinationError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CoordinationErrorKind {
    /// The store is down or slow: retry later; clients get 503 `coordination_unavailable`.
    Unavailable,
    /// A bug or corrupt state: clients get 500 `coordination_error`.
    Internal,
}

impl CoordinationError {
    pub fn kind(&self) -> CoordinationErrorKind {
        match self {
            Self::Unavailable(_) | Self::Timeout(_) => CoordinationErrorKind::Unavailable,
            Self::Protocol(_) | Self::InvalidInput(_) => CoordinationErrorKind::Internal,
        }
    }
}

impl CoordinationErrorKind {
    /// The stable `code` of the OpenAI-shaped error body.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Unavailable => "coordination_unavailable",
            Self::Internal => "coordination_error",
        }
    }

    /// The HTTP status the API maps this kind to.
    pub const fn http_status(self) -> u16 {
        match self {
            Self::Unavailable => 503,
            Self::Internal => 500,
        }
    }
}

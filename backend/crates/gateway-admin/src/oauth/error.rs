//! The error of the login use cases, with stable codes for the admin API.

use gateway_core::coordination::CoordinationError;
use gateway_core::oauth_login::OAuthFailure;
use gateway_core::ports::StorageError;

use super::callback::CallbackRejected;

#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    #[error("no login provider for {0}")]
    UnsupportedProvider(String),
    #[error(transparent)]
    Callback(#[from] CallbackRejected),
    /// No pending flow for this state/flow id: unknown, expired, or already completed (a
    /// replayed callback lands here).
    #[error("unknown, expired or already completed login")]
    UnknownFlow,
    /// The flow was started by someone else; it is left untouched.
    #[error("this login was started by another user")]
    NotYourFlow,
    /// Another completion of the same flow is running.
    #[error("this login is being completed already")]
    InProgress,
    #[error("the pending login is of another kind")]
    WrongFlowKind,
    /// The login belongs to another upstream account than the one being re-authorised.
    #[error("the login is for another account than the one being re-authorised")]
    WrongAccount,
    #[error("account {0} not found")]
    AccountNotFound(i64),
    #[error("account {0} belongs to another provider")]
    WrongProvider(i64),
    /// The login's egress proxy cannot be used (`field`: `egressProxy` or `groupId`).
    #[error("{field}: {message}")]
    InvalidProxy { field: &'static str, message: String },
    #[error(transparent)]
    Upstream(#[from] OAuthFailure),
    /// The account changed concurrently too often to store the new credential.
    #[error("the account kept changing; try again")]
    Conflict,
    #[error("storage failed: {0}")]
    Storage(#[from] StorageError),
    #[error("coordination failed: {0}")]
    Coordination(#[from] CoordinationError),
}

impl OAuthError {
    /// Stable code for the admin API envelope.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnsupportedProvider(_) => "provider_unsupported",
            Self::Callback(_) => "invalid_callback",
            Self::UnknownFlow => "oauth_flow_not_found",
            Self::NotYourFlow => "oauth_flow_not_owned",
            Self::InProgress => "oauth_flow_in_progress",
            Self::WrongFlowKind => "oauth_flow_kind_mismatch",
            Self::WrongAccount => "oauth_account_mismatch",
            Self::AccountNotFound(_) => "not_found",
            Self::WrongProvider(_) | Self::InvalidProxy { .. } => "invalid_input",
            Self::Upstream(OAuthFailure::Denied(_)) => "oauth_denied",
            Self::Upstream(OAuthFailure::Expired) => "oauth_expired",
            Self::Upstream(OAuthFailure::Rejected(_)) => "oauth_rejected",
            Self::Upstream(OAuthFailure::Unavailable(_)) => "upstream_unavailable",
            Self::Upstream(OAuthFailure::NotEnabled(_)) => "oauth_not_enabled",
            Self::Upstream(OAuthFailure::CorruptFlow) => "oauth_flow_corrupt",
            Self::Conflict => "conflict",
            Self::Storage(_) => "storage_unavailable",
            Self::Coordination(_) => "coordination_unavailable",
        }
    }

    /// The HTTP status the admin API should answer with.
    pub fn http_status(&self) -> u16 {
        match self {
            Self::UnsupportedProvider(_) | Self::Callback(_) | Self::WrongFlowKind | Self::WrongProvider(_) => 400,
            Self::InvalidProxy { .. } => 422,
            Self::UnknownFlow | Self::AccountNotFound(_) => 404,
            Self::NotYourFlow => 403,
            Self::InProgress | Self::Conflict | Self::WrongAccount => 409,
            Self::Upstream(OAuthFailure::Unavailable(_)) => 502,
            Self::Upstream(_) => 422,
            Self::Storage(_) | Self::Coordination(_) => 503,
        }
    }
}

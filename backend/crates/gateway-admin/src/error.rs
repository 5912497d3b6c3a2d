//! The one error of the admin use cases, with stable kinds for the admin API envelope.
//!
//! `code()` is the stable machine-readable code and `http_status()` the status the admin API
//! answers with; the table lives here once (documented in `docs/admin-api.md`).

use gateway_core::coordination::{CoordinationError, CoordinationErrorKind};
use gateway_core::ports::{StorageError, StorageErrorKind};

/// One invalid input field: `field` is the JSON path in camelCase (`limits.maxConcurrency`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// The input is invalid; `field` names what to fix.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    /// Several fields are invalid at once.
    #[error("{} invalid field(s)", .0.len())]
    InvalidFields(Vec<FieldError>),
    #[error("{0} not found")]
    NotFound(String),
    #[error("conflict: {0}")]
    Conflict(String),
    /// A credential could not be imported or exported.
    #[error("{0}")]
    Credential(String),
    /// No valid session or API key.
    #[error("{0}")]
    Unauthenticated(String),
    /// Wrong username or password (never says which).
    #[error("invalid username or password")]
    InvalidCredentials,
    /// The password was right but a TOTP code is required (or was wrong).
    #[error("a valid TOTP code is required")]
    TotpRequired,
    /// The TOTP code is wrong (or was already used).
    #[error("the TOTP code is wrong")]
    TotpInvalid,
    /// The account's provider cannot do this (no refresher, no quota probe, no login).
    #[error("{0}")]
    Unsupported(String),
    /// Authenticated, but this request is not allowed (CSRF check, step-up missing).
    #[error("{0}")]
    Forbidden(String),
    /// Too many attempts; retry after the given seconds.
    #[error("too many attempts; retry in {retry_after_seconds} s")]
    RateLimited { retry_after_seconds: u64 },
    /// `If-Match` named a revision that is no longer current.
    #[error("the configuration changed (current revision {current})")]
    RevisionMismatch { current: i64 },
    /// Coordination storage (Redis) is unavailable: sessions cannot be checked (fails closed).
    #[error("coordination unavailable: {0}")]
    Coordination(#[source] CoordinationError),
    #[error("storage failed: {0}")]
    Storage(#[source] StorageError),
}

impl AdminError {
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        Self::Invalid { field: field.to_owned(), message: message.into() }
    }

    /// Stable code for the admin API.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Invalid { .. } | Self::InvalidFields(_) => "invalid_input",
            Self::NotFound(_) => "not_found",
            Self::Conflict(_) => "conflict",
            Self::Credential(_) => "credential_rejected",
            Self::Unauthenticated(_) => "unauthenticated",
            Self::InvalidCredentials => "invalid_credentials",
            Self::TotpRequired => "totp_required",
            Self::TotpInvalid => "totp_invalid",
            Self::Unsupported(_) => "provider_unsupported",
            Self::Forbidden(_) => "forbidden",
            Self::RateLimited { .. } => "rate_limited",
            Self::RevisionMismatch { .. } => "revision_mismatch",
            Self::Coordination(e) => e.kind().code(),
            Self::Storage(_) => "storage_unavailable",
        }
    }

    /// The HTTP status of the admin API for this error.
    pub fn http_status(&self) -> u16 {
        match self {
            Self::Invalid { .. } | Self::InvalidFields(_) | Self::Credential(_) | Self::Unsupported(_) => 422,
            Self::NotFound(_) => 404,
            Self::Conflict(_) => 409,
            Self::Unauthenticated(_) | Self::InvalidCredentials | Self::TotpRequired | Self::TotpInvalid => 401,
            Self::Forbidden(_) => 403,
            Self::RateLimited { .. } => 429,
            Self::RevisionMismatch { .. } => 412,
            Self::Coordination(e) => e.kind().http_status(),
            Self::Storage(e) if e.kind() == StorageErrorKind::Unavailable => 503,
            Self::Storage(_) => 500,
        }
    }

    /// The invalid fields, if this is a validation error.
    pub fn fields(&self) -> Vec<FieldError> {
        match self {
            Self::Invalid { field, message } => vec![FieldError { field: field.clone(), message: message.clone() }],
            Self::InvalidFields(fields) => fields.clone(),
            _ => Vec::new(),
        }
    }

    /// The message shown to the admin. Storage and coordination internals are summarised, never
    /// echoed (they may name constraints, which is fine, but never values).
    pub fn public_message(&self) -> String {
        match self {
            Self::Storage(e) if e.kind() == StorageErrorKind::Unavailable => "the database is unavailable".to_owned(),
            Self::Storage(_) => "internal storage error".to_owned(),
            Self::Coordination(e) if e.kind() == CoordinationErrorKind::Unavailable => {
                "coordination storage (Redis) is unavailable".to_owned()
            }
            Self::Coordination(_) => "internal coordination error".to_owned(),
            other => other.to_string(),
        }
    }
}

impl From<StorageError> for AdminError {
    fn from(error: StorageError) -> Self {
        match error.kind() {
            StorageErrorKind::NotFound => Self::NotFound(error.to_string()),
            StorageErrorKind::Conflict | StorageErrorKind::RevisionMismatch => Self::Conflict(error.to_string()),
            StorageErrorKind::Constraint => Self::invalid("input", error.to_string()),
            _ => Self::Storage(error),
        }
    }
}

impl From<CoordinationError> for AdminError {
    fn from(error: CoordinationError) -> Self {
        Self::Coordination(error)
    }
}

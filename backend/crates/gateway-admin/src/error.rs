//! The one error of the admin use cases, with stable kinds for the admin API envelope.

use gateway_core::ports::{StorageError, StorageErrorKind};

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// The input is invalid; `field` names what to fix.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    #[error("{0} not found")]
    NotFound(String),
    #[error("conflict: {0}")]
    Conflict(String),
    /// A credential could not be imported or exported.
    #[error("{0}")]
    Credential(String),
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
            Self::Invalid { .. } => "invalid_input",
            Self::NotFound(_) => "not_found",
            Self::Conflict(_) => "conflict",
            Self::Credential(_) => "credential_rejected",
            Self::Storage(_) => "storage_unavailable",
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

//! The one error type of every storage port (core and admin).
//!
//! Messages name tables, constraints and ids, never stored values: a unique violation on an
//! e-mail says which constraint failed, not which e-mail.

use std::fmt;

/// Which kind of integrity rule refused a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    ForeignKey,
    Check,
    NotNull,
    /// A value the column type cannot hold (too long, out of range, malformed).
    InvalidValue,
}

impl ConstraintKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ForeignKey => "foreign_key",
            Self::Check => "check",
            Self::NotNull => "not_null",
            Self::InvalidValue => "invalid_value",
        }
    }
}

impl fmt::Display for ConstraintKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The addressed row does not exist.
    #[error("{entity} {id} not found")]
    NotFound { entity: &'static str, id: String },
    /// A unique constraint refused the write (duplicate name, key, external id, active job…).
    #[error("conflict on unique constraint `{constraint}`")]
    Conflict { constraint: String },
    /// A foreign key, CHECK, NOT NULL or type rule refused the write.
    #[error("{kind} constraint `{constraint}` refused the write")]
    Constraint { kind: ConstraintKind, constraint: String },
    /// A compare-and-swap lost: the stored revision is not the expected one.
    #[error("{entity} {id}: expected revision {expected}, stored revision is {actual}")]
    RevisionMismatch { entity: &'static str, id: String, expected: i64, actual: i64 },
    /// The database cannot be reached, timed out, or asked to retry (serialization failure).
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// Stored data cannot be read back (undecodable value, ciphertext that does not open).
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
    /// The store cannot do what was asked with its configuration (e.g. no master key).
    #[error("storage misconfigured: {0}")]
    Misconfigured(String),
    /// Anything else; a bug or an unexpected database answer.
    #[error("storage error: {0}")]
    Internal(String),
}

/// The stable kinds of [`StorageError`], mapped to client/admin error codes in one table by
/// the API layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StorageErrorKind {
    NotFound,
    Conflict,
    Constraint,
    RevisionMismatch,
    Unavailable,
    Corrupt,
    Misconfigured,
    Internal,
}

impl StorageErrorKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "not_found",
            Self::Conflict => "conflict",
            Self::Constraint => "constraint",
            Self::RevisionMismatch => "revision_mismatch",
            Self::Unavailable => "unavailable",
            Self::Corrupt => "corrupt",
            Self::Misconfigured => "misconfigured",
            Self::Internal => "internal",
        }
    }
}

impl StorageError {
    pub fn kind(&self) -> StorageErrorKind {
        match self {
            Self::NotFound { .. } => StorageErrorKind::NotFound,
            Self::Conflict { .. } => StorageErrorKind::Conflict,
            Self::Constraint { .. } => StorageErrorKind::Constraint,
            Self::RevisionMismatch { .. } => StorageErrorKind::RevisionMismatch,
            Self::Unavailable(_) => StorageErrorKind::Unavailable,
            Self::Corrupt(_) => StorageErrorKind::Corrupt,
            Self::Misconfigured(_) => StorageErrorKind::Misconfigured,
            Self::Internal(_) => StorageErrorKind::Internal,
        }
    }

    pub fn not_found(entity: &'static str, id: impl fmt::Display) -> Self {
        Self::NotFound { entity, id: id.to_string() }
    }
}

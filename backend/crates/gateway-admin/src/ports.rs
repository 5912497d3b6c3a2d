//! Ports of the admin use cases. Adapters (gateway-store) implement them; every trait is
//! `Send + Sync` and used as `Arc<dyn …>`. Errors are `gateway_core::ports::StorageError`.
//!
//! Writes that change routing or security go through [`UnitOfWork`]: `begin()` gives an
//! [`AdminTransaction`]; its `commit(audit)` bumps `config_revision`, writes the audit row and
//! commits in one database transaction. Dropping the transaction rolls everything back.

pub mod account_directory;
pub mod admin_changes;
pub mod admin_transaction;
pub mod audit_trail;
pub mod backup_jobs;
pub mod client_key_directory;
pub mod group_directory;
pub mod runtime_settings_reader;
pub mod unit_of_work;

pub use account_directory::AccountDirectory;
pub use admin_changes::{AccountImport, ClientKeyChanges, GroupChanges, ImportOutcome, NewClientKey};
pub use admin_transaction::{AdminTransaction, CommitReceipt};
pub use audit_trail::AuditTrail;
pub use backup_jobs::BackupJobs;
pub use client_key_directory::ClientKeyDirectory;
pub use gateway_core::ports::{StorageError, StorageErrorKind};
pub use group_directory::GroupDirectory;
pub use runtime_settings_reader::RuntimeSettingsReader;
pub use unit_of_work::UnitOfWork;

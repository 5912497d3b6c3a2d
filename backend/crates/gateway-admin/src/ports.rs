//! Ports of the admin use cases. Adapters (gateway-store) implement them; every trait is
//! `Send + Sync` and used as `Arc<dyn …>`. Errors are `gateway_core::ports::StorageError`.
//!
//! Writes that change routing or security go through [`UnitOfWork`]: `begin()` gives an
//! [`AdminTransaction`]; its `commit(audit)` bumps `config_revision`, writes the audit row and
//! commits in one database transaction. Dropping the transaction rolls everything back.

pub mod account_actions;
pub mod account_directory;
pub mod admin_changes;
pub mod admin_sessions;
pub mod admin_transaction;
pub mod admin_users;
pub mod alert_settings;
pub mod audit_search;
pub mod audit_trail;
pub mod backup_engine;
pub mod backup_jobs;
pub mod client_key_directory;
pub mod group_directory;
pub mod host_resolver;
pub mod in_flight_counts;
pub mod login_throttle;
pub mod ops_event_queries;
pub mod proxy_probe;
pub mod runtime_settings_reader;
pub mod unit_of_work;
pub mod usage_queries;

pub use account_actions::AccountActions;
pub use account_directory::AccountDirectory;
pub use admin_changes::{AccountImport, ClientKeyChanges, GroupChanges, ImportOutcome, NewClientKey};
pub use admin_sessions::{AdminSession, AdminSessions, SessionTokenHash};
pub use admin_transaction::{AdminTransaction, CommitReceipt};
pub use admin_users::AdminUsers;
pub use alert_settings::AlertSettings;
pub use audit_search::{AuditFilter, AuditSearch};
pub use audit_trail::AuditTrail;
pub use backup_engine::{BackupEngine, BackupFailure, BackupTarget, TransferProgress, UploadedBackup};
pub use backup_jobs::BackupJobs;
pub use client_key_directory::ClientKeyDirectory;
pub use gateway_core::ports::{StorageError, StorageErrorKind};
pub use group_directory::GroupDirectory;
pub use host_resolver::{HostResolver, ResolveError};
pub use in_flight_counts::InFlightCounts;
pub use login_throttle::{FailureCount, LoginThrottle};
pub use ops_event_queries::{OpsEventFilter, OpsEventQueries, StoredOpsEvent};
pub use proxy_probe::{ProbePhaseTime, ProxyProbe, ProxyProbeOutcome};
pub use runtime_settings_reader::RuntimeSettingsReader;
pub use unit_of_work::UnitOfWork;
pub use usage_queries::UsageQueries;

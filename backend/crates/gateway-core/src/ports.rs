//! Ports: the traits the engine needs from storage. Adapters (gateway-store) implement them;
//! every trait is `Send + Sync` and used as `Arc<dyn …>`.
//!
//! Storage ports are never called on the hot path before the upstream send: the snapshot is in
//! memory and observations go through bounded queues to flush workers.

pub mod cookie_jars;
pub mod credential_store;
pub mod ops_event_log;
pub mod quota_store;
pub mod request_log;
pub mod snapshot_source;
pub mod storage_error;

pub use cookie_jars::{CookieFacts, CookieJarFacts, CookieJarStore, StoredCookieJar};
pub use credential_store::{CredentialStore, CredentialWrite, RefreshDue};
pub use ops_event_log::OpsEventLog;
pub use quota_store::QuotaStore;
pub use request_log::RequestLog;
pub use snapshot_source::{SnapshotFacts, SnapshotSource};
pub use storage_error::{ConstraintKind, StorageError, StorageErrorKind};

//! What the backup daemon needs from the outside world: a database dump streamed into object
//! storage, the object read back, a scratch restore, deletion and presigned links. gateway-store
//! implements it (aws-sdk-s3 + `pg_dump`/`pg_restore`, or SQLite's `VACUUM INTO`).

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::backup::{BackupStorageSecrets, RowCounts};

/// Where backups live: the storage identity plus its credentials. `Debug` never shows the keys.
#[derive(Clone)]
pub struct BackupTarget {
    pub endpoint: String,
    pub region: String,
    pub bucket: String,
    pub path_style: bool,
    pub prefix: String,
    pub secrets: BackupStorageSecrets,
}

impl fmt::Debug for BackupTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BackupTarget")
            .field("endpoint", &gateway_core::redaction::url_userinfo_redacted(&self.endpoint))
            .field("region", &self.region)
            .field("bucket", &self.bucket)
            .field("path_style", &self.path_style)
            .field("prefix", &self.prefix)
            .field("secrets", &self.secrets)
            .finish()
    }
}

impl BackupTarget {
    /// The object key of backup `name` under the prefix (`prefix/name`, no doubled slash).
    pub fn object_key(&self, name: &str) -> String {
        let prefix = self.prefix.trim_matches('/');
        if prefix.is_empty() { name.to_owned() } else { format!("{prefix}/{name}") }
    }
}

/// A finished upload: what was stored and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadedBackup {
    pub size_bytes: u64,
    pub sha256: [u8; 32],
    pub row_counts: RowCounts,
}

/// Why a step failed: a stable `code` (`pg_dump`, `pg_version`, `s3`, `verify_size`, …) and a
/// message for the operator (for `pg_dump`, its stderr). Never holds a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct BackupFailure {
    pub code: String,
    pub message: String,
}

impl BackupFailure {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self { code: code.to_owned(), message: message.into() }
    }
}

/// Called by the engine while a job runs; every call is also the job's heartbeat.
#[async_trait]
pub trait TransferProgress: Send + Sync {
    async fn upload_started(&self, upload_id: &str);
    async fn bytes_uploaded(&self, bytes_done: u64);
}

#[async_trait]
pub trait BackupEngine: Send + Sync {
    /// The object name's extension for this database kind (`dump` or `sqlite`).
    fn extension(&self) -> &'static str;
    /// Checks up front what a dump needs (for PostgreSQL: `pg_dump` major ≥ server major).
    async fn preflight(&self) -> Result<(), BackupFailure>;
    /// Dumps the database and streams it to `object_key` (multipart), hashing on the way.
    async fn dump_and_upload(
        &self,
        target: &BackupTarget,
        object_key: &str,
        progress: &dyn TransferProgress,
    ) -> Result<UploadedBackup, BackupFailure>;
    /// Reads the object back and checks its size and SHA-256.
    async fn check_object(
        &self,
        target: &BackupTarget,
        object_key: &str,
        size_bytes: u64,
        sha256: [u8; 32],
    ) -> Result<(), BackupFailure>;
    /// Restores the object into a scratch database (dropped afterwards) and returns its row
    /// counts; the object's SHA-256 is checked on the way.
    async fn restore_scratch(
        &self,
        target: &BackupTarget,
        object_key: &str,
        sha256: [u8; 32],
    ) -> Result<RowCounts, BackupFailure>;
    async fn delete_object(&self, target: &BackupTarget, object_key: &str) -> Result<(), BackupFailure>;
    async fn abort_upload(&self, target: &BackupTarget, object_key: &str, upload_id: &str)
    -> Result<(), BackupFailure>;
    /// Removes the local staging directories (`switchboard-backup-*`) that no backup of this
    /// process is using: what a hard kill left behind. Returns the paths removed.
    async fn sweep_staging(&self) -> Result<Vec<String>, BackupFailure>;
    /// Aborts the incomplete multipart uploads under the target's prefix that were started
    /// before `started_before`, except the upload ids in `keep`. Returns the aborted keys.
    async fn abort_stale_uploads(
        &self,
        target: &BackupTarget,
        started_before: OffsetDateTime,
        keep: &[String],
    ) -> Result<Vec<String>, BackupFailure>;
    /// A time-limited GET link for the object.
    async fn presign_download(
        &self,
        target: &BackupTarget,
        object_key: &str,
        ttl: Duration,
    ) -> Result<String, BackupFailure>;
}

//! Backups: the settings singleton and the job records (`backup_settings`, `backup_records`).

use std::collections::BTreeMap;
use std::fmt;

use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

gateway_core::closed_set!(
    /// queued → dumping → uploading → completed | failed; completed/failed → deleting.
    BackupState as "backup state" {
        Queued = "queued",
        Dumping = "dumping",
        Uploading = "uploading",
        Completed = "completed",
        Failed = "failed",
        Deleting = "deleting",
    }
);

impl BackupState {
    /// The states of the one job allowed at a time (partial unique index).
    pub fn is_active(self) -> bool {
        matches!(self, Self::Queued | Self::Dumping | Self::Uploading)
    }
}

gateway_core::closed_set!(
    BackupTrigger as "backup trigger" {
        Manual = "manual",
        Scheduled = "scheduled",
    }
);

/// A row of `backup_records`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BackupId(pub i64);

impl fmt::Display for BackupId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupRecord {
    pub id: BackupId,
    pub trigger: BackupTrigger,
    pub state: BackupState,
    pub object_key: Option<String>,
    pub size_bytes: Option<u64>,
    pub sha256: Option<[u8; 32]>,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    pub expires_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
    pub started_at: Option<OffsetDateTime>,
    pub finished_at: Option<OffsetDateTime>,
    /// Doubles as the job's heartbeat while it runs (every uploaded part refreshes it).
    pub updated_at: OffsetDateTime,
    /// Rows per table at dump time, taken from the same snapshot as the dump.
    pub row_counts: Option<RowCounts>,
    /// Bytes uploaded so far (progress).
    pub bytes_done: u64,
    /// The open multipart upload of a running job.
    pub upload_id: Option<String>,
    /// The last full-restore verification that matched the row counts.
    pub verified_at: Option<OffsetDateTime>,
    /// Why the last full-restore verification failed, if it did.
    pub verify_error: Option<String>,
}

impl BackupRecord {
    /// Completed and its last full-restore verification matched.
    pub fn is_verified(&self) -> bool {
        self.state == BackupState::Completed && self.verified_at.is_some() && self.verify_error.is_none()
    }
}

/// Rows per table (`schema.table` for PostgreSQL, the table name for SQLite).
pub type RowCounts = BTreeMap<String, u64>;

/// What a running job reports: the open upload, the bytes sent, the dump's row counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BackupTransfer {
    pub upload_id: Option<String>,
    pub bytes_done: u64,
    pub row_counts: Option<RowCounts>,
}

/// A step of a backup job; the store accepts it only from the states listed in
/// [`BackupProgress::allowed_from`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackupProgress {
    Uploading { object_key: String },
    Completed { object_key: String, size_bytes: u64, sha256: [u8; 32] },
    Failed { error_code: String, error_message: String },
    Deleting,
}

impl BackupProgress {
    pub fn target(&self) -> BackupState {
        match self {
            Self::Uploading { .. } => BackupState::Uploading,
            Self::Completed { .. } => BackupState::Completed,
            Self::Failed { .. } => BackupState::Failed,
            Self::Deleting => BackupState::Deleting,
        }
    }

    pub fn allowed_from(&self) -> &'static [BackupState] {
        match self {
            Self::Uploading { .. } => &[BackupState::Dumping],
            Self::Completed { .. } => &[BackupState::Uploading],
            Self::Failed { .. } => &[BackupState::Queued, BackupState::Dumping, BackupState::Uploading],
            Self::Deleting => &[BackupState::Completed, BackupState::Failed],
        }
    }
}

/// S3/R2 access keys. Sealed at rest; `Debug` shows only the access key id's first characters.
#[derive(Clone)]
pub struct BackupStorageSecrets {
    pub access_key_id: SecretString,
    pub secret_access_key: SecretString,
}

impl BackupStorageSecrets {
    pub fn new(access_key_id: String, secret_access_key: String) -> Self {
        Self {
            access_key_id: SecretString::from(access_key_id),
            secret_access_key: SecretString::from(secret_access_key),
        }
    }

    /// The JSON document that is sealed (`{"access_key_id":…,"secret_access_key":…}`).
    pub fn to_sealable_json(&self) -> SecretString {
        let value = serde_json::json!({
            "access_key_id": self.access_key_id.expose_secret(),
            "secret_access_key": self.secret_access_key.expose_secret(),
        });
        SecretString::from(value.to_string())
    }

    /// Parses the document produced by [`Self::to_sealable_json`].
    pub fn from_sealed_json(json: &str) -> Option<Self> {
        let value: serde_json::Value = serde_json::from_str(json).ok()?;
        let access = value.get("access_key_id")?.as_str()?;
        let secret = value.get("secret_access_key")?.as_str()?;
        Some(Self::new(access.to_owned(), secret.to_owned()))
    }
}

impl fmt::Debug for BackupStorageSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BackupStorageSecrets([REDACTED])")
    }
}

/// The settings singleton, without its secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupSettings {
    pub enabled: bool,
    pub endpoint: String,
    pub region: String,
    pub bucket: String,
    pub path_style: bool,
    pub prefix: String,
    /// Whether sealed storage secrets are stored.
    pub has_credentials: bool,
    pub schedule_cron: Option<String>,
    pub retention_count: Option<u32>,
    pub retention_days: Option<u32>,
    /// The last scheduled instant the daemon handled.
    pub schedule_cursor_at: Option<OffsetDateTime>,
    pub updated_at: OffsetDateTime,
}

/// What to do with the stored storage secrets on a settings update.
#[derive(Debug, Clone)]
pub enum SecretsChange {
    Keep,
    Replace(BackupStorageSecrets),
    Clear,
}

/// A settings update (the use case checks that storage identity — endpoint, region, bucket,
/// path style — does not change once records exist).
#[derive(Debug, Clone)]
pub struct BackupSettingsUpdate {
    pub enabled: bool,
    pub endpoint: String,
    pub region: String,
    pub bucket: String,
    pub path_style: bool,
    pub prefix: String,
    pub credentials: SecretsChange,
    pub schedule_cron: Option<String>,
    pub retention_count: Option<u32>,
    pub retention_days: Option<u32>,
}

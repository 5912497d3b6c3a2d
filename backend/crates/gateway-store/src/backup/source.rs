//! What differs between PostgreSQL and SQLite backups: how a dump is made and how it is restored.

use async_trait::async_trait;

use gateway_admin::backup::RowCounts;
use gateway_admin::ports::BackupFailure;

use super::s3::{MultipartUpload, ObjectReader};

/// Where a restore goes.
#[derive(Debug, Clone, Copy)]
pub enum RestoreMode<'a> {
    /// A scratch database created for the check and dropped afterwards.
    Scratch,
    /// An operator's destination (a `postgres://` URL or a SQLite file path); a destination that
    /// already holds tables is refused unless `allow_non_empty`.
    Into { destination: &'a str, allow_non_empty: bool },
}

#[async_trait]
pub(crate) trait DumpSource: Send + Sync {
    fn extension(&self) -> &'static str;
    /// Where this source makes its staging directories, if it makes any.
    fn staging_parent(&self) -> Option<&std::path::Path> {
        None
    }
    async fn preflight(&self) -> Result<(), BackupFailure>;
    /// Writes a consistent dump into the upload; returns the rows per table it holds.
    async fn dump(&self, upload: &mut MultipartUpload<'_>) -> Result<RowCounts, BackupFailure>;
    /// Restores what the reader yields (reading it to the end); returns the restored row counts.
    async fn restore(&self, reader: &mut ObjectReader, mode: RestoreMode<'_>) -> Result<RowCounts, BackupFailure>;
}

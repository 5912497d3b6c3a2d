//! Backups to S3-compatible storage: [`S3BackupEngine`] implements the admin port
//! [`BackupEngine`] for a PostgreSQL ([`PostgresSource`]: `pg_dump`/`pg_restore`) or SQLite
//! ([`SqliteSource`]: `VACUUM INTO`) database. Dumps stream into a multipart upload with their
//! SHA-256 computed on the way; reads stream back the same way.

mod pg_url;
mod postgres_source;
mod s3;
mod source;
mod sqlite_source;
mod staging;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_admin::backup::RowCounts;
use gateway_admin::ports::{BackupEngine, BackupFailure, BackupTarget, TransferProgress, UploadedBackup};

pub use postgres_source::PostgresSource;
pub use s3::MIN_PART_SIZE;
pub use source::RestoreMode;
pub use sqlite_source::SqliteSource;

use s3::{MultipartUpload, ObjectReader};
use source::DumpSource;

/// The backup engine for one database.
#[derive(Clone)]
pub struct S3BackupEngine {
    source: Arc<dyn DumpSource>,
    part_size: usize,
}

impl S3BackupEngine {
    pub fn postgres(source: PostgresSource) -> Self {
        Self { source: Arc::new(source), part_size: 16 * 1024 * 1024 }
    }

    pub fn sqlite(source: SqliteSource) -> Self {
        Self { source: Arc::new(source), part_size: 16 * 1024 * 1024 }
    }

    /// Multipart part size (at least [`MIN_PART_SIZE`]).
    pub fn with_part_size(mut self, bytes: usize) -> Self {
        self.part_size = bytes.max(MIN_PART_SIZE);
        self
    }

    /// Restores a backup (its SHA-256 checked on the way) into `mode`'s destination and
    /// returns the restored rows per table.
    pub async fn restore(
        &self,
        target: &BackupTarget,
        object_key: &str,
        sha256: [u8; 32],
        mode: RestoreMode<'_>,
    ) -> Result<RowCounts, BackupFailure> {
        let mut reader = ObjectReader::open(target, object_key).await?;
        let restored = self.source.restore(&mut reader, mode).await;
        // drain what the restore did not read, so the hash covers the whole object
        while reader.next_chunk().await?.is_some() {}
        reader.check(None, sha256)?;
        restored
    }
}

#[async_trait]
impl BackupEngine for S3BackupEngine {
    fn extension(&self) -> &'static str {
        self.source.extension()
    }

    async fn preflight(&self) -> Result<(), BackupFailure> {
        self.source.preflight().await
    }

    async fn dump_and_upload(
        &self,
        target: &BackupTarget,
        object_key: &str,
        progress: &dyn TransferProgress,
    ) -> Result<UploadedBackup, BackupFailure> {
        let mut upload = MultipartUpload::start(target, object_key, self.part_size, progress).await?;
        match self.source.dump(&mut upload).await {
            Ok(row_counts) => {
                let (size_bytes, sha256) = upload.finish().await?;
                Ok(UploadedBackup { size_bytes, sha256, row_counts })
            }
            Err(failure) => {
                upload.abort().await;
                Err(failure)
            }
        }
    }

    async fn check_object(
        &self,
        target: &BackupTarget,
        object_key: &str,
        size_bytes: u64,
        sha256: [u8; 32],
    ) -> Result<(), BackupFailure> {
        let mut reader = ObjectReader::open(target, object_key).await?;
        while reader.next_chunk().await?.is_some() {}
        reader.check(Some(size_bytes), sha256)
    }

    async fn restore_scratch(
        &self,
        target: &BackupTarget,
        object_key: &str,
        sha256: [u8; 32],
    ) -> Result<RowCounts, BackupFailure> {
        self.restore(target, object_key, sha256, RestoreMode::Scratch).await
    }

    async fn delete_object(&self, target: &BackupTarget, object_key: &str) -> Result<(), BackupFailure> {
        s3::delete(target, object_key).await
    }

    async fn abort_upload(
        &self,
        target: &BackupTarget,
        object_key: &str,
        upload_id: &str,
    ) -> Result<(), BackupFailure> {
        s3::abort(&s3::client(target), &target.bucket, object_key, upload_id).await
    }

    async fn sweep_staging(&self) -> Result<Vec<String>, BackupFailure> {
        // a few directory entries: cheap enough to do inline
        self.source.staging_parent().map_or(Ok(Vec::new()), staging::sweep)
    }

    async fn abort_stale_uploads(
        &self,
        target: &BackupTarget,
        started_before: OffsetDateTime,
        keep: &[String],
    ) -> Result<Vec<String>, BackupFailure> {
        // `object_key("")` is `prefix/` (or empty): only this gateway's backups are listed
        s3::abort_stale(target, &target.object_key(""), started_before, keep).await
    }

    async fn presign_download(
        &self,
        target: &BackupTarget,
        object_key: &str,
        ttl: Duration,
    ) -> Result<String, BackupFailure> {
        s3::presign(target, object_key, ttl).await
    }
}

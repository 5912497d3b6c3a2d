//! Re-sealing every sealed secret under the current master key (`switchboard secrets reseal`),
//! with the PostgreSQL adapter's statements, types and rules (`postgres::key_rotation`): keyset
//! batches, one committed transaction per batch on the single writer, a compare-and-swap on the
//! old ciphertext, only the ciphertext and its key id change.

use gateway_core::ports::StorageError;

use crate::postgres::column_values::int8;
use crate::postgres::{ResealBatch, ResealCounts, ResealReport, SealedKind};
use crate::sql_shared::reseal::{self as shared, ResealPlan, ResealStore};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;

impl SqliteStore {
    /// Re-seals every kind to the end, `batch` rows per committed transaction.
    pub async fn reseal_secrets(&self, batch: u32) -> Result<ResealReport, StorageError> {
        shared::reseal_secrets(self, batch).await
    }

    /// Re-seals one kind to the end, batch by batch; then counts what is still under another key.
    pub async fn reseal_kind(&self, kind: SealedKind, batch: u32) -> Result<ResealCounts, StorageError> {
        shared::reseal_kind(self, kind, batch).await
    }

    /// Rows of `kind` sealed under another key than the current one.
    pub async fn count_not_current(&self, kind: SealedKind) -> Result<u64, StorageError> {
        let remaining: i64 = sqlx::query_scalar(kind.column().count)
            .bind(self.keyring()?.current_key_id().to_owned())
            .fetch_one(self.reader())
            .await
            .map_err(storage_error)?;
        Ok(u64::try_from(remaining).unwrap_or(0))
    }

    /// Re-seals up to `batch` rows of `kind` with an id above `after_id` that are not under the
    /// current key, in one committed transaction.
    pub async fn reseal_batch(&self, kind: SealedKind, after_id: i64, batch: u32) -> Result<ResealBatch, StorageError> {
        let keyring = self.keyring()?;
        let column = kind.column();
        let mut tx = self.writer().begin().await.map_err(storage_error)?;
        let rows = sqlx::query(column.select)
            .bind(keyring.current_key_id().to_owned())
            .bind(after_id)
            .bind(int8(u64::from(batch.max(1)), "batch")?)
            .fetch_all(&mut *tx)
            .await
            .map_err(storage_error)?;
        let ResealPlan { writes, mut batch } = ResealPlan::new(keyring, kind, &rows)?;
        for write in &writes {
            let done = sqlx::query(column.update)
                .bind(write.id)
                .bind(&write.new.ciphertext)
                .bind(&write.new.key_id)
                .bind(&write.old.key_id)
                .bind(&write.old.ciphertext)
                .execute(&mut *tx)
                .await
                .map_err(storage_error)?;
            ResealPlan::written(&mut batch, done.rows_affected());
        }
        tx.commit().await.map_err(storage_error)?;
        Ok(batch)
    }
}

#[async_trait::async_trait]
impl ResealStore for SqliteStore {
    async fn reseal_one_batch(&self, kind: SealedKind, after_id: i64, batch: u32) -> Result<ResealBatch, StorageError> {
        self.reseal_batch(kind, after_id, batch).await
    }

    async fn count_remaining(&self, kind: SealedKind) -> Result<u64, StorageError> {
        self.count_not_current(kind).await
    }
}

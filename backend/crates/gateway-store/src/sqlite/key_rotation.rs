//! Re-sealing every sealed secret under the current master key (`switchboard secrets reseal`),
//! with the PostgreSQL adapter's statements, types and rules (`postgres::key_rotation`): keyset
//! batches, one committed transaction per batch on the single writer, a compare-and-swap on the
//! old ciphertext, only the ciphertext and its key id change.

use sqlx::sqlite::SqliteRow;

use gateway_core::ports::StorageError;

use crate::crypto::SealedSecret;
use crate::postgres::column_values::{closed, int8};
use crate::postgres::key_rotation::reseal;
use crate::postgres::sealing::{
    ALERT_WEBHOOK_SECRET_CONTEXT, BACKUP_SECRETS_CONTEXT, credential_context, totp_context,
};
use crate::postgres::{ResealBatch, ResealCounts, ResealReport, SealedKind};
use crate::rows::egress_proxy::{account_proxy_context, group_proxy_context};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::SqliteColumns;

/// The associated-data context of a row the kind's `select` returned.
fn context(kind: SealedKind, row: &SqliteRow) -> Result<String, StorageError> {
    Ok(match kind {
        SealedKind::Credentials => {
            let provider = closed(row.col::<&str>("provider")?, "provider_accounts.provider")?;
            credential_context(provider, row.col::<&str>("external_account_id")?)
        }
        SealedKind::TotpSecrets => totp_context(row.col("id")?),
        SealedKind::BackupSecrets => BACKUP_SECRETS_CONTEXT.to_owned(),
        SealedKind::AccountProxies => {
            account_proxy_context(row.col::<&str>("provider")?, row.col::<&str>("external_account_id")?)
        }
        SealedKind::GroupProxies => group_proxy_context(row.col("id")?),
        SealedKind::WebhookSecrets => ALERT_WEBHOOK_SECRET_CONTEXT.to_owned(),
    })
}

impl SqliteStore {
    /// Re-seals every kind to the end, `batch` rows per committed transaction.
    pub async fn reseal_secrets(&self, batch: u32) -> Result<ResealReport, StorageError> {
        let mut report = ResealReport::default();
        for kind in SealedKind::ALL {
            report.kinds.push((kind, self.reseal_kind(kind, batch).await?));
        }
        Ok(report)
    }

    /// Re-seals one kind to the end, batch by batch; then counts what is still under another key.
    pub async fn reseal_kind(&self, kind: SealedKind, batch: u32) -> Result<ResealCounts, StorageError> {
        let mut total = ResealCounts::default();
        let mut after = 0;
        loop {
            let done = self.reseal_batch(kind, after, batch).await?;
            total.resealed += done.counts.resealed;
            total.unreadable += done.counts.unreadable;
            total.skipped += done.counts.skipped;
            match done.last_id {
                Some(last) => after = last,
                None => break,
            }
        }
        total.remaining = self.count_not_current(kind).await?;
        Ok(total)
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
        let mut counts = ResealCounts::default();
        let mut last_id = None;
        for row in &rows {
            let id: i64 = row.col("id")?;
            last_id = Some(id);
            let old = SealedSecret { key_id: row.col("key_id")?, ciphertext: row.col("ciphertext")? };
            let Some(new) = reseal(keyring, kind, id, &old, &context(kind, row)?)? else {
                counts.unreadable += 1;
                continue;
            };
            let done = sqlx::query(column.update)
                .bind(id)
                .bind(&new.ciphertext)
                .bind(&new.key_id)
                .bind(&old.key_id)
                .bind(&old.ciphertext)
                .execute(&mut *tx)
                .await
                .map_err(storage_error)?;
            if done.rows_affected() == 1 { counts.resealed += 1 } else { counts.skipped += 1 }
        }
        tx.commit().await.map_err(storage_error)?;
        Ok(ResealBatch { counts, last_id })
    }
}

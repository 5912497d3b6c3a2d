//! The key-rotation drivers both dialects share (`sql::key_rotation` has the rules and the
//! statements, which are the same SQL text on both): walking a kind batch by batch, the sealing
//! context of a selected row, and re-sealing a batch's rows before the adapter writes them.

use async_trait::async_trait;

use gateway_core::ports::StorageError;

use crate::crypto::{Keyring, SealedSecret};
use crate::postgres::column_values::closed;
use crate::postgres::sealing::{
    ALERT_WEBHOOK_SECRET_CONTEXT, BACKUP_SECRETS_CONTEXT, credential_context, totp_context,
};
use crate::postgres::{ResealBatch, ResealCounts, ResealReport, SealedKind};
use crate::row_columns::RowColumns;
use crate::rows::egress_proxy::{account_proxy_context, group_proxy_context};
use crate::sql::key_rotation::reseal;

/// What an adapter runs for the drivers: one committed batch, and the count still under another key.
#[async_trait]
pub(crate) trait ResealStore: Sync {
    async fn reseal_one_batch(&self, kind: SealedKind, after_id: i64, batch: u32) -> Result<ResealBatch, StorageError>;

    async fn count_remaining(&self, kind: SealedKind) -> Result<u64, StorageError>;
}

/// Every kind to the end, `batch` rows per committed transaction.
pub(crate) async fn reseal_secrets<S: ResealStore>(store: &S, batch: u32) -> Result<ResealReport, StorageError> {
    let mut report = ResealReport::default();
    for kind in SealedKind::ALL {
        report.kinds.push((kind, reseal_kind(store, kind, batch).await?));
    }
    Ok(report)
}

/// One kind to the end, batch by batch; then what is still under another key.
pub(crate) async fn reseal_kind<S: ResealStore>(
    store: &S,
    kind: SealedKind,
    batch: u32,
) -> Result<ResealCounts, StorageError> {
    let mut total = ResealCounts::default();
    let mut after = 0;
    loop {
        let done = store.reseal_one_batch(kind, after, batch).await?;
        total.resealed += done.counts.resealed;
        total.unreadable += done.counts.unreadable;
        total.skipped += done.counts.skipped;
        match done.last_id {
            Some(last) => after = last,
            None => break,
        }
    }
    total.remaining = store.count_remaining(kind).await?;
    Ok(total)
}

/// The associated-data context of a row the kind's `select` returned.
pub(crate) fn context(kind: SealedKind, row: &impl RowColumns) -> Result<String, StorageError> {
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

/// One compare-and-swap the adapter runs with the kind's `update` statement.
pub(crate) struct ResealWrite {
    pub(crate) id: i64,
    pub(crate) old: SealedSecret,
    pub(crate) new: SealedSecret,
}

/// A selected batch, re-sealed: the writes to run, and the batch's counts so far (unreadable rows
/// and the last id); [`ResealPlan::written`] counts each write's outcome.
pub(crate) struct ResealPlan {
    pub(crate) writes: Vec<ResealWrite>,
    pub(crate) batch: ResealBatch,
}

impl ResealPlan {
    pub(crate) fn new<R: RowColumns>(keyring: &Keyring, kind: SealedKind, rows: &[R]) -> Result<Self, StorageError> {
        let mut plan =
            Self { writes: Vec::new(), batch: ResealBatch { counts: ResealCounts::default(), last_id: None } };
        for row in rows {
            let id: i64 = row.col("id")?;
            plan.batch.last_id = Some(id);
            let old = SealedSecret { key_id: row.col("key_id")?, ciphertext: row.col("ciphertext")? };
            match reseal(keyring, kind, id, &old, &context(kind, row)?)? {
                Some(new) => plan.writes.push(ResealWrite { id, old, new }),
                None => plan.batch.counts.unreadable += 1,
            }
        }
        Ok(plan)
    }

    /// A write touched `rows` rows: re-sealed, or rewritten meanwhile by someone else (skipped).
    pub(crate) fn written(batch: &mut ResealBatch, rows: u64) {
        if rows == 1 { batch.counts.resealed += 1 } else { batch.counts.skipped += 1 }
    }
}

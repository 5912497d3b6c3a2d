//! The `model_requests` projection, written by the observation flush worker and maintained by
//! the request-recovery and retention workers.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::domain::{BootId, ModelRequestRecord, ReplicaName, RequestId, RequestStart, RequestUpdate};
use crate::ports::storage_error::StorageError;

#[async_trait]
pub trait RequestLog: Send + Sync {
    /// Inserts request starts in one statement; an id already stored is skipped (idempotent).
    /// A client key deleted meanwhile is stored as NULL. Returns the rows inserted.
    async fn record_starts(&self, starts: &[RequestStart]) -> Result<u64, StorageError>;

    /// Applies progress and terminal updates in order, as one statement (the updates of one
    /// request are folded first). The send-state watermark never falls and a terminal row is
    /// never changed back (enforced in SQL). Returns the number of rows that changed; an
    /// unknown id is skipped.
    async fn record_updates(&self, updates: &[RequestUpdate]) -> Result<u64, StorageError>;

    /// Writes one flush batch: the starts, then the updates. An adapter may write a request that
    /// starts and ends within the batch as one finished row. Returns (rows inserted, rows
    /// updated).
    async fn record_batch(
        &self,
        starts: &[RequestStart],
        updates: &[RequestUpdate],
    ) -> Result<(u64, u64), StorageError> {
        let inserted = if starts.is_empty() { 0 } else { self.record_starts(starts).await? };
        let updated = if updates.is_empty() { 0 } else { self.record_updates(updates).await? };
        Ok((inserted, updated))
    }

    /// Marks at most `limit` rows still `running` past their `deadline_at` as `incomplete`
    /// (`error_code = stale_recovered`). Never replays anything. Returns the recovered ids.
    async fn recover_stale(&self, now: OffsetDateTime, limit: u32) -> Result<Vec<RequestId>, StorageError>;

    /// The distinct boots that have rows still `running` (at most `limit`), for the recovery of
    /// the rows of processes that died.
    async fn running_boots(&self, limit: u32) -> Result<Vec<BootId>, StorageError>;

    /// Marks at most `limit` rows of `boot` still `running` as `incomplete`
    /// (`error_code = replica_lost`, `finished_at = now`): their process is gone. What the client
    /// had received (commit time, response id, http status, send state) is kept. Never replays
    /// anything. Returns the recovered ids.
    async fn recover_boot(&self, boot: BootId, now: OffsetDateTime, limit: u32)
    -> Result<Vec<RequestId>, StorageError>;

    /// The distinct boots that have rows still `running` recorded under `replica` (at most
    /// `limit`), for a restarted replica looking for what its earlier boots left.
    async fn running_boots_of(&self, replica: &ReplicaName, limit: u32) -> Result<Vec<BootId>, StorageError>;

    /// Marks at most `limit` rows of `boot` recorded under `replica` still `running` as
    /// `incomplete` (`error_code = replica_restarted`, `finished_at = now`): the replica
    /// restarted and that boot is gone. A row of `boot` under another name is not touched. What
    /// the client had received is kept; nothing is replayed. Returns the recovered ids.
    async fn recover_restarted_boot(
        &self,
        replica: &ReplicaName,
        boot: BootId,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<RequestId>, StorageError>;

    /// Deletes at most `limit` finished rows started before `cutoff`, oldest first.
    async fn delete_requests_before(&self, cutoff: OffsetDateTime, limit: u32) -> Result<u64, StorageError>;

    async fn get_request(&self, id: RequestId) -> Result<ModelRequestRecord, StorageError>;
}

//! The retention pass: cutoffs from the runtime settings, batches repeated while full, bounded.

use std::sync::{Arc, Mutex};

use gateway_core::domain::{
    BootId, ModelRequestRecord, OpsEvent, RequestId, RequestStart, RequestUpdate, RuntimeSettings,
};
use gateway_core::ports::{OpsEventLog, RequestLog, StorageError};
use gateway_core::request_retention::{BATCH, MAX_BATCHES, RequestRetention, RetentionPass};
use time::OffsetDateTime;
use time::macros::datetime;

/// Rows older than the cutoff the store still holds, and the cutoffs it was asked about.
#[derive(Default)]
struct Log {
    old_requests: Mutex<u64>,
    old_events: Mutex<u64>,
    request_cutoffs: Mutex<Vec<OffsetDateTime>>,
    event_cutoffs: Mutex<Vec<OffsetDateTime>>,
}

fn take(left: &Mutex<u64>, limit: u32) -> u64 {
    let mut left = left.lock().expect("lock");
    let n = (*left).min(u64::from(limit));
    *left -= n;
    n
}

#[async_trait::async_trait]
impl RequestLog for Log {
    async fn record_starts(&self, _: &[RequestStart]) -> Result<u64, StorageError> {
        Ok(0)
    }
    async fn record_updates(&self, _: &[RequestUpdate]) -> Result<u64, StorageError> {
        Ok(0)
    }
    async fn recover_stale(&self, _: OffsetDateTime, _: u32) -> Result<Vec<RequestId>, StorageError> {
        Ok(Vec::new())
    }
    async fn running_boots(&self, _: u32) -> Result<Vec<BootId>, StorageError> {
        Ok(Vec::new())
    }
    async fn recover_boot(&self, _: BootId, _: OffsetDateTime, _: u32) -> Result<Vec<RequestId>, StorageError> {
        Ok(Vec::new())
    }
    async fn running_boots_of(
        &self,
        _: &gateway_core::domain::ReplicaName,
        _: u32,
    ) -> Result<Vec<BootId>, StorageError> {
        Ok(Vec::new())
    }
    async fn recover_restarted_boot(
        &self,
        _: &gateway_core::domain::ReplicaName,
        _: BootId,
        _: OffsetDateTime,
        _: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        Ok(Vec::new())
    }
    async fn delete_requests_before(&self, cutoff: OffsetDateTime, limit: u32) -> Result<u64, StorageError> {
        self.request_cutoffs.lock().expect("lock").push(cutoff);
        Ok(take(&self.old_requests, limit))
    }
    async fn get_request(&self, id: RequestId) -> Result<ModelRequestRecord, StorageError> {
        Err(StorageError::not_found("request", id))
    }
}

#[async_trait::async_trait]
impl OpsEventLog for Log {
    async fn record_ops_events(&self, _: &[OpsEvent]) -> Result<u64, StorageError> {
        Ok(0)
    }
    async fn delete_ops_events_before(&self, cutoff: OffsetDateTime, limit: u32) -> Result<u64, StorageError> {
        self.event_cutoffs.lock().expect("lock").push(cutoff);
        Ok(take(&self.old_events, limit))
    }
}

fn retention(log: &Arc<Log>) -> RequestRetention {
    RequestRetention::new(log.clone(), log.clone())
}

const NOW: OffsetDateTime = datetime!(2026-12-01 12:00 UTC);

#[tokio::test]
async fn cutoffs_follow_the_runtime_settings() {
    let log = Arc::new(Log::default());
    let settings =
        RuntimeSettings { request_retention_days: 30, ops_event_retention_days: 7, ..RuntimeSettings::default() };
    let pass = retention(&log).tick(&settings, NOW).await.expect("pass");
    assert_eq!(pass, RetentionPass::default());
    assert_eq!(*log.request_cutoffs.lock().expect("lock"), [datetime!(2026-11-01 12:00 UTC)]);
    assert_eq!(*log.event_cutoffs.lock().expect("lock"), [datetime!(2026-11-24 12:00 UTC)]);
}

#[tokio::test]
async fn full_batches_repeat_until_one_comes_back_short() {
    let log = Arc::new(Log { old_requests: Mutex::new(2500), old_events: Mutex::new(1000), ..Log::default() });
    let pass = retention(&log).tick(&RuntimeSettings::default(), NOW).await.expect("pass");
    assert_eq!(pass, RetentionPass { requests: 2500, ops_events: 1000 });
    assert_eq!(log.request_cutoffs.lock().expect("lock").len(), 3, "1000, 1000, 500");
    assert_eq!(log.event_cutoffs.lock().expect("lock").len(), 2, "1000, then an empty batch");
}

#[tokio::test]
async fn one_pass_is_bounded() {
    let backlog = u64::from(BATCH) * (MAX_BATCHES as u64 + 5);
    let log = Arc::new(Log { old_requests: Mutex::new(backlog), ..Log::default() });
    let pass = retention(&log).tick(&RuntimeSettings::default(), NOW).await.expect("pass");
    assert_eq!(pass.requests, u64::from(BATCH) * MAX_BATCHES as u64);
    assert_eq!(*log.old_requests.lock().expect("lock"), u64::from(BATCH) * 5, "the rest waits for the next pass");
}

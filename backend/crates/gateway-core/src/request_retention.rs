//! Retention of the request log and the ops events: rows older than the runtime settings'
//! `request_retention_days` / `ops_event_retention_days` are deleted in small batches, repeated
//! while a batch comes back full, bounded per pass so one pass never holds the store for long.
//! The binary runs [`RequestRetention::tick`] every [`RequestRetention::PERIOD`].

use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use crate::domain::RuntimeSettings;
use crate::ports::{OpsEventLog, RequestLog, StorageError};

/// Rows one delete statement removes.
pub const BATCH: u32 = 1000;
/// Most batches of each kind in one pass.
pub const MAX_BATCHES: usize = 20;

/// What one pass deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RetentionPass {
    pub requests: u64,
    pub ops_events: u64,
}

pub struct RequestRetention {
    requests: Arc<dyn RequestLog>,
    ops: Arc<dyn OpsEventLog>,
}

impl RequestRetention {
    /// How often the retention worker runs a pass.
    pub const PERIOD: Duration = Duration::from_secs(300);

    pub fn new(requests: Arc<dyn RequestLog>, ops: Arc<dyn OpsEventLog>) -> Self {
        Self { requests, ops }
    }

    /// One pass at `now` under `settings`: request rows, then ops events.
    pub async fn tick(&self, settings: &RuntimeSettings, now: OffsetDateTime) -> Result<RetentionPass, StorageError> {
        let requests_cutoff = now - time::Duration::days(i64::from(settings.request_retention_days));
        let ops_cutoff = now - time::Duration::days(i64::from(settings.ops_event_retention_days));
        let mut pass = RetentionPass::default();
        for _ in 0..MAX_BATCHES {
            let deleted = self.requests.delete_requests_before(requests_cutoff, BATCH).await?;
            pass.requests += deleted;
            if deleted < u64::from(BATCH) {
                break;
            }
        }
        for _ in 0..MAX_BATCHES {
            let deleted = self.ops.delete_ops_events_before(ops_cutoff, BATCH).await?;
            pass.ops_events += deleted;
            if deleted < u64::from(BATCH) {
                break;
            }
        }
        Ok(pass)
    }
}

//! The `request` events of the live stream: usage records that started since the stream
//! connected, sent when first seen and again when their status changes (running → completed,
//! failed…). The dashboard's Requests page and Overview patch their lists from them.
//!
//! Each poll reads at most [`PER_POLL`] of the newest rows since the oldest row still running
//! (or the newest row seen): a burst larger than that between two polls shows only its newest
//! rows live, and the page's next refetch shows the rest.

use std::collections::HashMap;

use gateway_admin::AdminError;
use gateway_admin::services::ObservabilityService;
use gateway_admin::usage::UsageFilter;
use gateway_core::domain::RequestStatus;
use serde_json::Value;
use time::OffsetDateTime;

use crate::admin::usage_routes::RecordItem;

/// Rows read per poll.
pub const PER_POLL: u32 = 50;

pub struct RequestWatch {
    /// Rows at or after this start time are read.
    since: OffsetDateTime,
    /// The last status sent per request id (only rows at or after `since`).
    seen: HashMap<String, RequestStatus>,
}

impl RequestWatch {
    pub fn new(connected_at: OffsetDateTime) -> Self {
        Self { since: connected_at, seen: HashMap::new() }
    }

    /// The records to send now (new or changed), oldest first.
    pub async fn poll(&mut self, usage: &ObservabilityService) -> Result<Vec<Value>, AdminError> {
        let filter = UsageFilter { from: Some(self.since), ..UsageFilter::default() };
        let rows = usage.requests(&filter, None, PER_POLL).await?;
        let mut out = Vec::new();
        for row in rows.iter().rev() {
            let id = row.id.to_string();
            if self.seen.get(&id) != Some(&row.status) {
                self.seen.insert(id, row.status);
                out.push(serde_json::to_value(RecordItem::from(row)).unwrap_or_default());
            }
        }
        let running_since = rows.iter().filter(|r| r.status == RequestStatus::Running).map(|r| r.started_at).min();
        let newest = rows.iter().map(|r| r.started_at).max();
        if let Some(next) = running_since.or(newest) {
            self.since = self.since.max(next);
            let since = self.since;
            let keep: Vec<String> = rows.iter().filter(|r| r.started_at >= since).map(|r| r.id.to_string()).collect();
            self.seen.retain(|id, _| keep.contains(id));
        }
        Ok(out)
    }
}

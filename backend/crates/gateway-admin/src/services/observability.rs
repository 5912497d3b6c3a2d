//! What an operator watches: usage records, totals, breakdowns and trends, the dashboard
//! figures, ops events, the audit trail (search and chain check), and the start of the live
//! stream.

use std::sync::Arc;

use time::OffsetDateTime;

use gateway_core::coordination::{ChangeNotifier, ChangeSubscription};
use gateway_core::domain::{ConfigRevision, RequestId, RuntimeSettings};

use crate::audit::AuditEvent;
use crate::backup::BackupRecord;
use crate::error::AdminError;
use crate::ports::{
    AuditFilter, AuditSearch, AuditTrail, BackupJobs, OpsEventFilter, OpsEventQueries, RuntimeSettingsReader,
    StoredOpsEvent, UsageQueries,
};
use crate::usage::{
    BucketWidth, RequestCursor, RequestDetail, RequestSummary, UsageBucket, UsageDimension, UsageFilter, UsageGroup,
    UsageTotals,
};

pub struct ObservabilityPorts {
    pub usage: Arc<dyn UsageQueries>,
    pub ops: Arc<dyn OpsEventQueries>,
    pub audit: Arc<dyn AuditTrail>,
    pub audit_search: Arc<dyn AuditSearch>,
    pub settings: Arc<dyn RuntimeSettingsReader>,
    pub backups: Arc<dyn BackupJobs>,
    pub notifier: Arc<dyn ChangeNotifier>,
}

/// The dashboard's figures for a window `[from, to)` and the one before it.
pub struct DashboardFigures {
    pub current: UsageTotals,
    pub previous: UsageTotals,
    /// The ten most frequent error codes in the window.
    pub failures: Vec<UsageGroup>,
    /// The ten latest requests.
    pub latest: Vec<RequestSummary>,
    pub revision: ConfigRevision,
    pub settings: RuntimeSettings,
}

/// Where a live stream starts.
pub struct LiveStart {
    pub revision: ConfigRevision,
    pub last_ops_id: i64,
    /// `None` without Redis: the stream still polls.
    pub subscription: Option<ChangeSubscription>,
}

pub struct ObservabilityService {
    ports: ObservabilityPorts,
}

impl ObservabilityService {
    pub fn new(ports: ObservabilityPorts) -> Self {
        Self { ports }
    }

    /// Whether the database knows the IANA zone.
    pub async fn zone_exists(&self, tz: &str) -> Result<bool, AdminError> {
        Ok(self.ports.usage.time_zone_exists(tz).await?)
    }

    pub async fn requests(
        &self,
        filter: &UsageFilter,
        before: Option<RequestCursor>,
        limit: u32,
    ) -> Result<Vec<RequestSummary>, AdminError> {
        Ok(self.ports.usage.list_requests(filter, before, limit).await?)
    }

    pub async fn request(&self, id: RequestId) -> Result<RequestDetail, AdminError> {
        Ok(self.ports.usage.request_detail(id).await?)
    }

    /// The totals and the top `limit` groups by `by`.
    pub async fn breakdown(
        &self,
        filter: &UsageFilter,
        by: UsageDimension,
        limit: u32,
    ) -> Result<(UsageTotals, Vec<UsageGroup>), AdminError> {
        let totals = self.ports.usage.usage_totals(filter).await?;
        let groups = self.ports.usage.usage_groups(filter, by, limit).await?;
        Ok((totals, groups))
    }

    pub async fn trend(
        &self,
        filter: &UsageFilter,
        width: BucketWidth,
        tz: &str,
    ) -> Result<Vec<UsageBucket>, AdminError> {
        Ok(self.ports.usage.usage_trend(filter, width, tz).await?)
    }

    pub async fn dashboard(&self, from: OffsetDateTime, to: OffsetDateTime) -> Result<DashboardFigures, AdminError> {
        let usage = &self.ports.usage;
        let current_filter = UsageFilter { from: Some(from), to: Some(to), ..UsageFilter::default() };
        let previous_filter = UsageFilter { from: Some(from - (to - from)), to: Some(from), ..UsageFilter::default() };
        let current = usage.usage_totals(&current_filter).await?;
        let previous = usage.usage_totals(&previous_filter).await?;
        let failures = usage.usage_groups(&current_filter, UsageDimension::ErrorCode, 10).await?;
        let latest = usage.list_requests(&UsageFilter::default(), None, 10).await?;
        let (revision, settings) = self.ports.settings.read_runtime_settings().await?;
        Ok(DashboardFigures { current, previous, failures, latest, revision, settings })
    }

    pub async fn ops_events(
        &self,
        filter: &OpsEventFilter,
        before: Option<i64>,
        limit: u32,
    ) -> Result<Vec<StoredOpsEvent>, AdminError> {
        Ok(self.ports.ops.list_ops_events(filter, before, limit).await?)
    }

    /// Oldest first, ids above `after` (the live stream's tail).
    pub async fn ops_events_after(&self, after: i64, limit: u32) -> Result<Vec<StoredOpsEvent>, AdminError> {
        Ok(self.ports.ops.ops_events_after(after, limit).await?)
    }

    pub async fn audit_events(
        &self,
        filter: &AuditFilter,
        before: Option<i64>,
        limit: u32,
    ) -> Result<Vec<AuditEvent>, AdminError> {
        Ok(self.ports.audit_search.search_audit(filter, before, limit).await?)
    }

    pub async fn audit_event(&self, id: i64) -> Result<AuditEvent, AdminError> {
        Ok(self.ports.audit_search.get_audit_event(id).await?)
    }

    /// Walks the whole chain; the id of the first broken row, if any.
    pub async fn verify_audit_chain(&self) -> Result<Option<i64>, AdminError> {
        Ok(self.ports.audit.verify_audit_chain().await?)
    }

    /// The newest `limit` backup records (the live stream watches them).
    pub async fn latest_backups(&self, limit: u32) -> Result<Vec<BackupRecord>, AdminError> {
        Ok(self.ports.backups.list_backups(None, limit).await?)
    }

    /// The current revision and ops-event id, and a change subscription when one can be had.
    pub async fn live_start(&self) -> Result<LiveStart, AdminError> {
        let (revision, _) = self.ports.settings.read_runtime_settings().await?;
        let last_ops_id = self.ports.ops.latest_ops_event_id().await?;
        let subscription = self.ports.notifier.subscribe().await.ok();
        Ok(LiveStart { revision, last_ops_id, subscription })
    }
}

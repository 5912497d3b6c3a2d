//! Reading usage: request lists and details, totals, breakdowns and time buckets.

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_core::domain::{AccountId, RequestId};
use gateway_core::ports::StorageError;

use crate::usage::{
    BucketWidth, CalendarStarts, OutcomeCounts, RequestCursor, RequestDetail, RequestSummary, UsageBucket,
    UsageDimension, UsageFilter, UsageGroup, UsageTotals,
};

#[async_trait]
pub trait UsageQueries: Send + Sync {
    /// Newest first, strictly before `before` when given.
    async fn list_requests(
        &self,
        filter: &UsageFilter,
        before: Option<RequestCursor>,
        limit: u32,
    ) -> Result<Vec<RequestSummary>, StorageError>;
    async fn request_detail(&self, id: RequestId) -> Result<RequestDetail, StorageError>;
    async fn usage_totals(&self, filter: &UsageFilter) -> Result<UsageTotals, StorageError>;
    /// The requests started in `[from, to)` that are no longer running, and those that failed.
    async fn outcome_counts(&self, from: OffsetDateTime, to: OffsetDateTime) -> Result<OutcomeCounts, StorageError>;
    /// Groups by `by`, most requests first, at most `limit`.
    async fn usage_groups(
        &self,
        filter: &UsageFilter,
        by: UsageDimension,
        limit: u32,
    ) -> Result<Vec<UsageGroup>, StorageError>;
    /// Buckets of `width` aligned in the IANA zone `tz`; buckets without requests are absent.
    async fn usage_trend(
        &self,
        filter: &UsageFilter,
        width: BucketWidth,
        tz: &str,
    ) -> Result<Vec<UsageBucket>, StorageError>;
    /// Whether the database knows the IANA zone name.
    async fn time_zone_exists(&self, tz: &str) -> Result<bool, StorageError>;
    /// The start of the day and month containing `now`, in `tz`.
    async fn calendar_starts(&self, now: OffsetDateTime, tz: &str) -> Result<CalendarStarts, StorageError>;
    /// The start time of each account's latest request.
    async fn last_used_by_account(&self) -> Result<Vec<(AccountId, OffsetDateTime)>, StorageError>;
}

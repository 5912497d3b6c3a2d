//! The wire shape of one request record with its attempts (`GET /usage/records/{id}`), built
//! from the typed read model. The attempts keep the JSON shape the row stores (camelCase, times
//! in unix milliseconds), which the dashboard reads.

use gateway_admin::usage::RequestDetail;
use gateway_core::domain::{Attempt, GroupRef, RoutingSnapshot};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::views::RecordItem;
use crate::admin::dto::{Provider, SendStateName};

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordDetail {
    pub record: RecordItem,
    /// Each attempt: account, outcome, status, send state, timing.
    pub attempts: Vec<AttemptView>,
    /// `false` while the request runs or when its last observations may have been lost.
    pub attempts_complete: bool,
    /// The key's groups when the request started (empty for a key that may use all accounts).
    pub routing_groups: Vec<RoutingGroupView>,
    pub service_tier: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub deadline_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub downstream_committed_at: Option<OffsetDateTime>,
}

/// One attempt as the detail shows it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttemptView {
    pub n: u32,
    pub provider: Provider,
    pub account_id: i64,
    /// Unix milliseconds.
    pub started_at: i64,
    pub duration_ms: Option<u64>,
    /// `started`, `ok` or the failure code.
    pub outcome: &'static str,
    pub http_status: Option<u16>,
    pub send_state: SendStateName,
}

impl From<&Attempt> for AttemptView {
    fn from(a: &Attempt) -> Self {
        Self {
            n: a.number,
            provider: a.provider.into(),
            account_id: a.account.0,
            started_at: i64::try_from(a.started_at.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX),
            duration_ms: a.duration_ms,
            outcome: a.outcome.as_str(),
            http_status: a.http_status,
            send_state: a.send_state.into(),
        }
    }
}

/// A group of the key's scope, as it was named when the request started.
#[derive(Serialize, ToSchema)]
pub struct RoutingGroupView {
    pub id: i64,
    pub name: String,
}

impl From<&GroupRef> for RoutingGroupView {
    fn from(g: &GroupRef) -> Self {
        Self { id: g.id.0, name: g.name.clone() }
    }
}

impl From<&RequestDetail> for RecordDetail {
    fn from(d: &RequestDetail) -> Self {
        let request = &d.request;
        let groups = match &request.start.routing {
            RoutingSnapshot::All => Vec::new(),
            RoutingSnapshot::Groups(groups) => groups.iter().map(RoutingGroupView::from).collect(),
        };
        Self {
            record: RecordItem::from(&d.summary()),
            attempts: request.attempts.iter().map(AttemptView::from).collect(),
            attempts_complete: d.attempts_complete(),
            routing_groups: groups,
            service_tier: request.outcome.service_tier.clone(),
            deadline_at: request.start.deadline_at,
            downstream_committed_at: request.downstream_committed_at,
        }
    }
}

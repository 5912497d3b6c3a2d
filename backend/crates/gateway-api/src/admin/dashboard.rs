//! `/api/admin/dashboard/summary`: the overview page in one call — KPIs for the range and the
//! previous period of the same length, pool health, top failure codes, the latest requests.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::accounts::StateCounts;
use crate::admin::dto::{AccountStateName, parse_time};
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody};
use crate::admin::extract::QueryParams;
use crate::admin::settings_routes::Strategy;
use crate::admin::usage_routes::{TotalsView, checked_zone};

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new().routes(routes!(summary))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct SummaryQuery {
    /// Range start (RFC 3339); default: 24 hours before `to`.
    #[param(format = DateTime)]
    pub from: Option<String>,
    /// Range end (RFC 3339); default: now.
    #[param(format = DateTime)]
    pub to: Option<String>,
    /// IANA zone for "today" counters of the pool (default UTC).
    pub tz: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PoolView {
    pub accounts: StateCounts,
    /// Accounts in state `normal`.
    pub usable: u32,
    pub in_flight: u32,
    /// Sum of the effective caps of enabled accounts.
    pub slots: u32,
    pub default_account_concurrency: u32,
    pub rotation_strategy: Strategy,
}

#[derive(Serialize, ToSchema)]
pub struct FailureCount {
    pub code: String,
    pub count: u64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardSummary {
    #[serde(with = "time::serde::rfc3339")]
    pub from: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub to: OffsetDateTime,
    pub config_revision: i64,
    pub current: TotalsView,
    /// The period of the same length just before `from`.
    pub previous: TotalsView,
    pub pool: PoolView,
    pub top_failures: Vec<FailureCount>,
    pub latest: Vec<crate::admin::usage_routes::RecordItem>,
}

#[utoipa::path(get, path = "/api/admin/dashboard/summary", tag = "dashboard", params(SummaryQuery),
    responses((status = 200, body = DashboardSummary), (status = "4XX", body = ErrorBody)))]
pub async fn summary(
    State(api): State<AdminApi>,
    QueryParams(q): QueryParams<SummaryQuery>,
) -> ApiResult<Json<DashboardSummary>> {
    let now = OffsetDateTime::now_utc();
    let to = parse_time("to", q.to.as_deref())?.unwrap_or(now);
    let from = parse_time("from", q.from.as_deref())?.unwrap_or(to - time::Duration::hours(24));
    if from >= to {
        return Err(ApiFailure::invalid("from", "must be before to"));
    }
    let tz = checked_zone(&api, q.tz.as_deref()).await?;
    let figures = api.services.observability.dashboard(from, to).await?;
    let views = api.services.accounts.views(now, &tz).await?;
    let settings = &figures.settings;
    let mut pool = PoolView {
        accounts: StateCounts::default(),
        usable: 0,
        in_flight: 0,
        slots: 0,
        default_account_concurrency: settings.default_account_concurrency,
        rotation_strategy: settings.rotation_strategy.into(),
    };
    for view in &views {
        let item = crate::admin::account_view::AccountItem::from(view);
        pool.accounts.all += 1;
        pool.in_flight += view.in_flight;
        if view.record.scheduling.enabled {
            pool.slots += view.effective_cap;
        }
        match item.state {
            AccountStateName::Normal => {
                pool.accounts.normal += 1;
                pool.usable += 1;
            }
            AccountStateName::QuotaExhausted => pool.accounts.quota_exhausted += 1,
            AccountStateName::RateLimited => pool.accounts.rate_limited += 1,
            AccountStateName::Disabled => pool.accounts.disabled += 1,
            AccountStateName::Error => pool.accounts.error += 1,
        }
    }
    Ok(Json(DashboardSummary {
        from,
        to,
        config_revision: figures.revision.0,
        current: (&figures.current).into(),
        previous: (&figures.previous).into(),
        pool,
        top_failures: figures
            .failures
            .into_iter()
            .filter_map(|g| g.key.map(|code| FailureCount { code, count: g.totals.requests }))
            .collect(),
        latest: figures.latest.iter().map(Into::into).collect(),
    }))
}

//! `/api/admin/usage/*`: request records (filters, cursor), one record with its attempts,
//! breakdowns by dimension, and trends in time buckets aligned in the requested IANA zone.

mod record_detail;
mod views;

use axum::Json;
use axum::extract::State;
use gateway_admin::usage::{BucketWidth, RequestCursor, UsageDimension, UsageFilter};
use gateway_core::domain::{AccountId, ClientKeyId, RequestId};
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::dto::{Provider, RequestStatusName, TransportName, parse_time};
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody};
use crate::admin::extract::QueryParams;
use crate::admin::pagination;

pub use record_detail::RecordDetail;
pub use views::RecordItem;
pub use views::{InsightList, RecordList, TotalsView, TrendView};

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .routes(routes!(list_records))
        .routes(routes!(get_record))
        .routes(routes!(insights))
        .routes(routes!(trend))
}

/// The zone to aggregate in: `tz` if the database knows it, else `invalid_input`; UTC when
/// absent.
pub async fn checked_zone(api: &AdminApi, tz: Option<&str>) -> ApiResult<String> {
    let Some(tz) = tz else { return Ok("UTC".to_owned()) };
    if tz.is_empty() || tz.len() > 64 || tz.contains('\0') {
        return Err(ApiFailure::invalid("tz", "must be an IANA time zone such as Europe/Berlin"));
    }
    if api.services.observability.zone_exists(tz).await? {
        Ok(tz.to_owned())
    } else {
        Err(ApiFailure::invalid("tz", "must be an IANA time zone such as Europe/Berlin"))
    }
}

/// Filters shared by the usage endpoints. Times are RFC 3339; `from` inclusive, `to` exclusive.
#[derive(Deserialize, IntoParams, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct UsageQuery {
    #[param(format = DateTime)]
    pub from: Option<String>,
    #[param(format = DateTime)]
    pub to: Option<String>,
    pub key: Option<i64>,
    pub account: Option<i64>,
    #[param(inline)]
    pub provider: Option<Provider>,
    /// Requested or upstream model, exact.
    pub model: Option<String>,
    #[param(inline)]
    pub status: Option<RequestStatusName>,
    #[param(minimum = 100, maximum = 599)]
    pub http_status: Option<u16>,
    #[param(inline)]
    pub transport: Option<TransportName>,
    /// e.g. `responses.create`
    pub operation: Option<String>,
    pub cursor: Option<String>,
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// Breakdown dimension (insights).
    #[param(inline)]
    pub group_by: Option<Dimension>,
    /// Bucket width (trend); automatic when absent.
    #[param(inline)]
    pub bucket: Option<Bucket>,
    /// IANA zone of the buckets (default UTC).
    pub tz: Option<String>,
}

#[derive(Deserialize, ToSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    Model,
    Account,
    Key,
    Provider,
    Status,
    Operation,
    Transport,
    ErrorCode,
}

impl From<Dimension> for UsageDimension {
    fn from(d: Dimension) -> Self {
        match d {
            Dimension::Model => Self::Model,
            Dimension::Account => Self::Account,
            Dimension::Key => Self::Key,
            Dimension::Provider => Self::Provider,
            Dimension::Status => Self::Status,
            Dimension::Operation => Self::Operation,
            Dimension::Transport => Self::Transport,
            Dimension::ErrorCode => Self::ErrorCode,
        }
    }
}

#[derive(Deserialize, ToSchema, Clone, Copy)]
pub enum Bucket {
    #[serde(rename = "1m")]
    Minute,
    #[serde(rename = "5m")]
    FiveMinutes,
    #[serde(rename = "15m")]
    FifteenMinutes,
    #[serde(rename = "1h")]
    Hour,
    #[serde(rename = "1d")]
    Day,
}

impl From<Bucket> for BucketWidth {
    fn from(b: Bucket) -> Self {
        match b {
            Bucket::Minute => Self::Minute,
            Bucket::FiveMinutes => Self::FiveMinutes,
            Bucket::FifteenMinutes => Self::FifteenMinutes,
            Bucket::Hour => Self::Hour,
            Bucket::Day => Self::Day,
        }
    }
}

fn text_filter(field: &str, value: Option<String>) -> ApiResult<Option<String>> {
    match value {
        Some(v) if v.len() > 256 || v.contains('\0') => {
            Err(ApiFailure::invalid(field, "must be at most 256 characters"))
        }
        other => Ok(other),
    }
}

pub fn filter(q: &UsageQuery) -> ApiResult<UsageFilter> {
    let from = parse_time("from", q.from.as_deref())?;
    let to = parse_time("to", q.to.as_deref())?;
    if let (Some(from), Some(to)) = (from, to)
        && from > to
    {
        return Err(ApiFailure::invalid("to", "must not be before from"));
    }
    Ok(UsageFilter {
        from,
        to,
        client_key: q.key.map(ClientKeyId),
        account: q.account.map(AccountId),
        provider: q.provider.map(Into::into),
        model: text_filter("model", q.model.clone())?,
        status: q.status.map(Into::into),
        http_status: q.http_status,
        transport: q.transport.map(Into::into),
        operation: text_filter("operation", q.operation.clone())?,
    })
}

fn decode_cursor(cursor: Option<&str>) -> ApiResult<Option<RequestCursor>> {
    let Some(cursor) = cursor else { return Ok(None) };
    let text = pagination::decode(cursor)?;
    let bad = || ApiFailure::invalid("cursor", "is not a cursor returned by this API");
    let (micros, id) = text.split_once('_').ok_or_else(bad)?;
    let micros: i128 = micros.parse().map_err(|_| bad())?;
    let started_at = OffsetDateTime::from_unix_timestamp_nanos(micros * 1000).map_err(|_| bad())?;
    let id = uuid::Uuid::parse_str(id).map_err(|_| bad())?;
    Ok(Some(RequestCursor { started_at, id: RequestId(id) }))
}

/// Request records, newest first, keyset-paginated.
#[utoipa::path(get, path = "/api/admin/usage/records", tag = "usage", params(UsageQuery),
    responses((status = 200, body = RecordList), (status = "4XX", body = ErrorBody)))]
pub async fn list_records(
    State(api): State<AdminApi>,
    QueryParams(q): QueryParams<UsageQuery>,
) -> ApiResult<Json<RecordList>> {
    let limit = pagination::limit(q.limit)?;
    let filter = filter(&q)?;
    let before = decode_cursor(q.cursor.as_deref())?;
    let mut rows = api.services.observability.requests(&filter, before, limit + 1).await?;
    let next_cursor = pagination::next_cursor(&mut rows, limit, |r| {
        format!("{}_{}", r.started_at.unix_timestamp_nanos() / 1000, r.id.0)
    });
    Ok(Json(RecordList { items: rows.iter().map(Into::into).collect(), next_cursor }))
}

/// One record with its attempts (`attemptsComplete: false` while it may be partial).
#[utoipa::path(get, path = "/api/admin/usage/records/{id}", tag = "usage",
    params(("id" = String, Path, description = "request id (UUID)")),
    responses((status = 200, body = RecordDetail), (status = "4XX", body = ErrorBody)))]
pub async fn get_record(
    State(api): State<AdminApi>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> ApiResult<Json<RecordDetail>> {
    let id = uuid::Uuid::parse_str(&id).map_err(|_| ApiFailure::invalid("id", "must be a request id (UUID)"))?;
    let detail = api.services.observability.request(RequestId(id)).await?;
    Ok(Json(RecordDetail::from(&detail)))
}

/// Totals and the top groups of one dimension (requests, errors, tokens, cost, latency
/// percentiles — exact, computed in SQL).
#[utoipa::path(get, path = "/api/admin/usage/insights", tag = "usage", params(UsageQuery),
    responses((status = 200, body = InsightList), (status = "4XX", body = ErrorBody)))]
pub async fn insights(
    State(api): State<AdminApi>,
    QueryParams(q): QueryParams<UsageQuery>,
) -> ApiResult<Json<InsightList>> {
    let limit = pagination::limit(q.limit)?;
    let filter = filter(&q)?;
    let by = q.group_by.unwrap_or(Dimension::Model);
    let (totals, groups) = api.services.observability.breakdown(&filter, by.into(), limit).await?;
    Ok(Json(views::insight_list(UsageDimension::from(by).as_str(), &totals, &groups)))
}

/// Most points a trend may have.
const MAX_BUCKETS: i64 = 2000;

/// Requests, tokens, cost and latency per time bucket, aligned in `tz` (missing buckets are
/// absent, not zero). Default range: the last 24 hours.
#[utoipa::path(get, path = "/api/admin/usage/trend", tag = "usage", params(UsageQuery),
    responses((status = 200, body = TrendView), (status = "4XX", body = ErrorBody)))]
pub async fn trend(State(api): State<AdminApi>, QueryParams(q): QueryParams<UsageQuery>) -> ApiResult<Json<TrendView>> {
    let mut filter = filter(&q)?;
    let now = OffsetDateTime::now_utc();
    let to = filter.to.unwrap_or(now);
    let from = filter.from.unwrap_or(to - time::Duration::hours(24));
    filter.from = Some(from);
    filter.to = Some(to);
    let width = q.bucket.map_or_else(|| BucketWidth::automatic(to - from), Into::into);
    if (to - from).whole_seconds() / width.seconds() > MAX_BUCKETS {
        return Err(ApiFailure::invalid(
            "bucket",
            format!("the range holds more than {MAX_BUCKETS} buckets; widen the bucket"),
        ));
    }
    let tz = checked_zone(&api, q.tz.as_deref()).await?;
    let buckets = api.services.observability.trend(&filter, width, &tz).await?;
    Ok(Json(views::trend_view(width.as_str(), &tz, from, to, &buckets)))
}

//! `/api/admin/accounts*`: the pool list with derived state, quota and counters; detail; edits
//! of scheduling facts and groups; batch edits; delete; import; export; refresh, quota probe
//! and connection test.

mod actions;
mod transfer;

use std::cmp::Ordering;

use axum::extract::State;
use axum::response::Response;
use axum::{Extension, Json};
use gateway_admin::account_edits::{AccountPatch, AccountSettings, BatchAction};
use gateway_admin::auth::AdminPrincipal;
use gateway_core::domain::{AccountId, GroupId};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::account_view::AccountItem;
use crate::admin::dto::{AccountStateName, Provider, double_option};
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody, no_content};
use crate::admin::extract::{IdPath, JsonBody, QueryParams};
use crate::admin::pagination;
use crate::admin::usage_routes::checked_zone;

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .routes(routes!(list_accounts))
        .routes(routes!(get_account, patch_account, remove_account))
        .routes(routes!(batch_accounts))
        .routes(routes!(transfer::import_accounts))
        .routes(routes!(transfer::export_accounts))
        .routes(routes!(actions::refresh_account))
        .routes(routes!(actions::probe_account))
        .routes(routes!(actions::test_account))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AccountQuery {
    #[param(inline)]
    pub provider: Option<Provider>,
    #[param(inline)]
    pub state: Option<AccountStateName>,
    /// A group id, or `0` for accounts in no group.
    pub group: Option<i64>,
    /// Substring of e-mail or provider account id, or an exact id.
    pub search: Option<String>,
    /// `id` (default), `email`, `state`, `inFlight`, `lastUsed`, `todayRequests`.
    #[param(inline)]
    pub sort: Option<AccountSort>,
    pub desc: Option<bool>,
    /// IANA zone for "today" counters (default UTC).
    pub tz: Option<String>,
    pub cursor: Option<String>,
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum AccountSort {
    Id,
    Email,
    State,
    InFlight,
    LastUsed,
    TodayRequests,
}

#[derive(Serialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct StateCounts {
    pub all: u32,
    pub normal: u32,
    pub quota_exhausted: u32,
    pub rate_limited: u32,
    pub disabled: u32,
    pub error: u32,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountList {
    pub items: Vec<AccountItem>,
    pub next_cursor: Option<String>,
    /// Counts per state of the accounts matching every filter except `state`.
    pub counts: StateCounts,
}

fn passes_filters(item: &AccountItem, q: &AccountQuery) -> bool {
    q.provider.is_none_or(|p| item.provider == p)
        && q.group.is_none_or(|g| if g == 0 { item.group_ids.is_empty() } else { item.group_ids.contains(&g) })
        && q.search.as_deref().is_none_or(|s| {
            let s = s.to_lowercase();
            item.id.to_string() == s
                || item.email.as_deref().is_some_and(|e| e.to_lowercase().contains(&s))
                || item.external_account_id.to_lowercase().contains(&s)
        })
}

fn compare(a: &AccountItem, b: &AccountItem, sort: AccountSort) -> Ordering {
    let primary = match sort {
        AccountSort::Id => Ordering::Equal,
        AccountSort::Email => a.email.cmp(&b.email),
        AccountSort::State => (a.state as u8).cmp(&(b.state as u8)),
        AccountSort::InFlight => a.in_flight.cmp(&b.in_flight),
        AccountSort::LastUsed => a.last_used_at.cmp(&b.last_used_at),
        AccountSort::TodayRequests => a.today.requests.cmp(&b.today.requests),
    };
    primary.then(a.id.cmp(&b.id))
}

/// The pool: each row carries derived state, quota windows, in-flight/cap, groups and today's
/// counters, so the list needs no per-row calls. Computed in memory over all accounts; the
/// cursor is an opaque offset into the sorted, filtered list.
#[utoipa::path(get, path = "/api/admin/accounts", tag = "accounts", params(AccountQuery),
    responses((status = 200, body = AccountList), (status = "4XX", body = ErrorBody)))]
pub async fn list_accounts(
    State(api): State<AdminApi>,
    QueryParams(q): QueryParams<AccountQuery>,
) -> ApiResult<Json<AccountList>> {
    let limit = pagination::limit(q.limit)?;
    let offset = pagination::decode_number(q.cursor.as_deref())?.unwrap_or(0).max(0) as usize;
    let tz = checked_zone(&api, q.tz.as_deref()).await?;
    let views = api.services.accounts.views(OffsetDateTime::now_utc(), &tz).await?;
    let mut counts = StateCounts::default();
    let mut items: Vec<AccountItem> = views.iter().map(AccountItem::from).filter(|i| passes_filters(i, &q)).collect();
    for item in &items {
        counts.all += 1;
        match item.state {
            AccountStateName::Normal => counts.normal += 1,
            AccountStateName::QuotaExhausted => counts.quota_exhausted += 1,
            AccountStateName::RateLimited => counts.rate_limited += 1,
            AccountStateName::Disabled => counts.disabled += 1,
            AccountStateName::Error => counts.error += 1,
        }
    }
    items.retain(|i| q.state.is_none_or(|s| i.state == s));
    let sort = q.sort.unwrap_or(AccountSort::Id);
    items.sort_by(|a, b| if q.desc.unwrap_or(false) { compare(b, a, sort) } else { compare(a, b, sort) });
    let mut page: Vec<AccountItem> = items.into_iter().skip(offset).take(limit as usize + 1).collect();
    let next = (offset + limit as usize).to_string();
    let next_cursor = pagination::next_cursor(&mut page, limit, |_| next.clone());
    Ok(Json(AccountList { items: page, next_cursor, counts }))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ZoneQuery {
    /// IANA zone for "today" counters (default UTC).
    pub tz: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelExclusionView {
    pub model: String,
    #[serde(with = "time::serde::rfc3339::option")]
    pub until: Option<OffsetDateTime>,
}

/// One cookie the upstream set on this account's answers: never its value.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CookieView {
    pub name: String,
    pub domain: String,
    pub path: String,
    /// `null`: a session cookie.
    #[serde(with = "time::serde::rfc3339::option")]
    pub expires_at: Option<OffsetDateTime>,
}

/// The account's cookie jar as last stored (the gateway stores changes within seconds).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CookieJarView {
    /// The egress path the cookies were collected on (`direct` or the proxy without user info).
    pub egress_path: String,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    pub cookies: Vec<CookieView>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountDetail {
    pub account: AccountItem,
    /// Models this account answered "not supported" for, until the exclusion ends.
    pub model_exclusions: Vec<ModelExclusionView>,
    /// The cookies the upstream set on this account (names and expiry only); `null`: none.
    pub cookie_jar: Option<CookieJarView>,
}

/// One account with the same facts as a list row plus its model exclusions.
#[utoipa::path(get, path = "/api/admin/accounts/{id}", tag = "accounts",
    params(("id" = i64, Path), ZoneQuery),
    responses((status = 200, body = AccountDetail), (status = "4XX", body = ErrorBody)))]
pub async fn get_account(
    State(api): State<AdminApi>,
    IdPath(id): IdPath,
    QueryParams(q): QueryParams<ZoneQuery>,
) -> ApiResult<Json<AccountDetail>> {
    let tz = checked_zone(&api, q.tz.as_deref()).await?;
    let (view, facts) = api.services.accounts.detail(AccountId(id), OffsetDateTime::now_utc(), &tz).await?;
    let now = OffsetDateTime::now_utc();
    let cookie_jar = facts.cookies.map(|jar| CookieJarView {
        egress_path: jar.egress_path,
        updated_at: jar.updated_at,
        cookies: jar
            .cookies
            .into_iter()
            .filter(|c| c.expires_at.is_none_or(|at| at > now))
            .map(|c| CookieView { name: c.name, domain: c.domain, path: c.path, expires_at: c.expires_at })
            .collect(),
    });
    let model_exclusions = facts
        .exclusions
        .into_iter()
        .map(|e| ModelExclusionView {
            model: e.model,
            until: OffsetDateTime::from_unix_timestamp_nanos(i128::from(e.until.0) * 1_000_000).ok(),
        })
        .collect();
    Ok(Json(AccountDetail { account: AccountItem::from(&view), model_exclusions, cookie_jar }))
}

/// Editable facts; absent fields are kept.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AccountChanges {
    pub enabled: Option<bool>,
    /// `null` inherits the runtime default.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 10000)]
    pub concurrency_cap: Option<Option<u32>>,
    #[schema(minimum = 1, maximum = 100)]
    pub weight: Option<u8>,
    /// The complete group set.
    pub group_ids: Option<Vec<i64>>,
}

impl AccountChanges {
    pub fn patch(&self) -> AccountPatch {
        AccountPatch {
            enabled: self.enabled,
            concurrency_cap: self.concurrency_cap,
            weight: self.weight,
            groups: self.group_ids.as_ref().map(|g| g.iter().copied().map(GroupId).collect()),
        }
    }
}

/// The editable facts before a change: send them back to undo it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviousSettings {
    pub enabled: bool,
    pub concurrency_cap: Option<u32>,
    pub weight: u8,
    pub group_ids: Vec<i64>,
}

impl From<&AccountSettings> for PreviousSettings {
    fn from(s: &AccountSettings) -> Self {
        Self {
            enabled: s.scheduling.enabled,
            concurrency_cap: s.scheduling.concurrency_cap,
            weight: s.scheduling.weight.get(),
            group_ids: s.groups.iter().map(|g| g.0).collect(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AccountUpdated {
    pub account: AccountItem,
    pub previous: PreviousSettings,
}

/// Edits scheduling facts (enabled, cap, weight) and groups in one audited transaction.
/// Credentials, profile and quota are never changed here.
#[utoipa::path(patch, path = "/api/admin/accounts/{id}", tag = "accounts",
    params(("id" = i64, Path)), request_body = AccountChanges,
    responses((status = 200, body = AccountUpdated), (status = "4XX", body = ErrorBody)))]
pub async fn patch_account(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody<AccountChanges>,
) -> ApiResult<Json<AccountUpdated>> {
    let (before, view) = api.services.accounts.update(principal.actor(), AccountId(id), body.patch()).await?;
    Ok(Json(AccountUpdated { account: AccountItem::from(&view), previous: PreviousSettings::from(&before) }))
}

/// Deletes the account (its request history keeps a null account). Audited.
#[utoipa::path(delete, path = "/api/admin/accounts/{id}", tag = "accounts", params(("id" = i64, Path)),
    responses((status = 204, description = "deleted"), (status = "4XX", body = ErrorBody)))]
pub async fn remove_account(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
) -> ApiResult<Response> {
    api.services.accounts.delete(principal.actor(), AccountId(id)).await?;
    Ok(no_content())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BatchOperation {
    Update,
    AddGroups,
    RemoveGroups,
    Delete,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BatchRequest {
    #[schema(min_items = 1, max_items = 1000)]
    pub ids: Vec<i64>,
    pub operation: BatchOperation,
    /// For `update`: the fields to change (only these change).
    pub changes: Option<AccountChanges>,
    /// For `add_groups` / `remove_groups`.
    pub group_ids: Option<Vec<i64>>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchResultItem {
    pub id: i64,
    pub ok: bool,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
    /// Facts before the change (for undo), for `update` and group operations.
    pub previous: Option<PreviousSettings>,
}

#[derive(Serialize, ToSchema)]
pub struct BatchResult {
    pub items: Vec<BatchResultItem>,
}

/// Applies one operation to many accounts in one audited transaction; accounts that do not
/// exist are reported per item.
#[utoipa::path(post, path = "/api/admin/accounts/batch", tag = "accounts", request_body = BatchRequest,
    responses((status = 200, body = BatchResult), (status = "4XX", body = ErrorBody)))]
pub async fn batch_accounts(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    JsonBody(body): JsonBody<BatchRequest>,
) -> ApiResult<Json<BatchResult>> {
    let groups = || -> ApiResult<Vec<GroupId>> {
        body.group_ids
            .as_ref()
            .map(|g| g.iter().copied().map(GroupId).collect())
            .ok_or_else(|| ApiFailure::invalid("groupIds", "is required for this operation"))
    };
    let action = match body.operation {
        BatchOperation::Update => BatchAction::Update(
            body.changes
                .as_ref()
                .map(AccountChanges::patch)
                .ok_or_else(|| ApiFailure::invalid("changes", "is required for update"))?,
        ),
        BatchOperation::AddGroups => BatchAction::AddGroups(groups()?),
        BatchOperation::RemoveGroups => BatchAction::RemoveGroups(groups()?),
        BatchOperation::Delete => BatchAction::Delete,
    };
    let ids: Vec<AccountId> = body.ids.iter().copied().map(AccountId).collect();
    let items = api.services.accounts.batch(principal.actor(), &ids, action).await?;
    Ok(Json(BatchResult {
        items: items
            .into_iter()
            .map(|i| BatchResultItem {
                id: i.account.0,
                ok: i.error.is_none(),
                error_code: i.error.as_ref().map(|e| e.0.clone()),
                error_message: i.error.map(|e| e.1),
                previous: i.before.as_ref().map(PreviousSettings::from),
            })
            .collect(),
    }))
}

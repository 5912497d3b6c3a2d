//! `/api/admin/keys*`: client keys — create (plaintext shown once), list with budget use,
//! edit limits and scope, delete.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use gateway_admin::auth::AdminPrincipal;
use gateway_admin::client_keys::{KeyPatch, KeySpec};
use gateway_admin::services::keys::KeyContext;
use gateway_admin::usage::UsageTotals;
use gateway_core::domain::{ClientKeyId, ClientKeyLimits, ClientKeyRecord, GroupId, KeyScope, NanoUsd};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::dto::{ServiceTierPolicyName, double_option};
use crate::admin::envelope::{ApiResult, ErrorBody, no_content};
use crate::admin::extract::{IdPath, JsonBody, QueryParams};
use crate::admin::pagination;
use crate::admin::usage_routes::checked_zone;

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new().routes(routes!(list_keys, post_key)).routes(routes!(get_key, patch_key, remove_key))
}

/// Limits; `null` or absent = unlimited.
#[derive(Serialize, Deserialize, ToSchema, Default, Clone)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Limits {
    #[schema(minimum = 1, maximum = 2147483647)]
    pub max_concurrency: Option<u32>,
    #[schema(minimum = 1, maximum = 2147483647)]
    pub requests_per_minute: Option<u32>,
    #[schema(minimum = 1, maximum = 9223372036854775807_u64)]
    pub daily_token_budget: Option<u64>,
    #[schema(minimum = 1, maximum = 9223372036854775807_u64)]
    pub monthly_token_budget: Option<u64>,
    /// nano-USD (1 USD = 10⁹).
    #[schema(minimum = 1)]
    pub daily_cost_budget_nano_usd: Option<i64>,
    #[schema(minimum = 1)]
    pub monthly_cost_budget_nano_usd: Option<i64>,
}

impl From<&ClientKeyLimits> for Limits {
    fn from(l: &ClientKeyLimits) -> Self {
        Self {
            max_concurrency: l.max_concurrency,
            requests_per_minute: l.requests_per_minute,
            daily_token_budget: l.daily_token_budget,
            monthly_token_budget: l.monthly_token_budget,
            daily_cost_budget_nano_usd: l.daily_cost_budget.map(|c| c.0),
            monthly_cost_budget_nano_usd: l.monthly_cost_budget.map(|c| c.0),
        }
    }
}

impl From<&Limits> for ClientKeyLimits {
    fn from(l: &Limits) -> Self {
        Self {
            max_concurrency: l.max_concurrency,
            requests_per_minute: l.requests_per_minute,
            daily_token_budget: l.daily_token_budget,
            monthly_token_budget: l.monthly_token_budget,
            daily_cost_budget: l.daily_cost_budget_nano_usd.map(NanoUsd),
            monthly_cost_budget: l.monthly_cost_budget_nano_usd.map(NanoUsd),
        }
    }
}

#[derive(Serialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct KeyUsage {
    pub requests: u64,
    pub total_tokens: u64,
    pub cost_nano_usd: i64,
}

impl From<&UsageTotals> for KeyUsage {
    fn from(t: &UsageTotals) -> Self {
        Self { requests: t.requests, total_tokens: t.total_tokens, cost_nano_usd: t.cost_nano_usd }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyItem {
    pub id: i64,
    pub name: String,
    /// The first characters of the key (the rest is never stored).
    pub prefix: String,
    pub enabled: bool,
    /// `enabled`, `disabled` or `expired`.
    pub status: String,
    #[serde(with = "time::serde::rfc3339::option")]
    pub expires_at: Option<OffsetDateTime>,
    pub limits: Limits,
    /// `null` = every model.
    pub allowed_models: Option<Vec<String>>,
    pub service_tier_policy: ServiceTierPolicyName,
    /// `all` (every account, including future ones) or `groups`.
    pub scope: String,
    pub group_ids: Vec<i64>,
    /// Scoped to groups that are all disabled or empty: requests fail closed.
    pub empty_pool: bool,
    /// Use since midnight / the 1st of the month in the requested zone (for budget bars).
    pub today: KeyUsage,
    pub month: KeyUsage,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

fn item(key: ClientKeyRecord, ctx: &KeyContext) -> KeyItem {
    let now = OffsetDateTime::now_utc();
    let group_ids: Vec<GroupId> = match &key.scope {
        KeyScope::AllAccounts => Vec::new(),
        KeyScope::Groups(g) => g.clone(),
    };
    let empty_pool = !group_ids.is_empty()
        && !group_ids.iter().any(|g| ctx.groups.get(g).is_some_and(|g| g.enabled && !g.account_ids.is_empty()));
    let status = if key.expires_at.is_some_and(|e| e <= now) {
        "expired"
    } else if key.enabled {
        "enabled"
    } else {
        "disabled"
    };
    let id = key.id.0.to_string();
    KeyItem {
        id: key.id.0,
        prefix: key.key_prefix,
        enabled: key.enabled,
        status: status.to_owned(),
        expires_at: key.expires_at,
        limits: Limits::from(&key.limits),
        allowed_models: key.allowed_models,
        service_tier_policy: key.service_tier_policy.into(),
        scope: key.scope.name().to_owned(),
        group_ids: group_ids.iter().map(|g| g.0).collect(),
        empty_pool,
        today: ctx.today.get(&id).map(KeyUsage::from).unwrap_or_default(),
        month: ctx.month.get(&id).map(KeyUsage::from).unwrap_or_default(),
        name: key.name,
        created_at: key.created_at,
        updated_at: key.updated_at,
    }
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct KeyQuery {
    /// Substring of the name or prefix.
    pub search: Option<String>,
    /// IANA zone of the budget periods (default UTC).
    pub tz: Option<String>,
    pub cursor: Option<String>,
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyList {
    pub items: Vec<KeyItem>,
    pub next_cursor: Option<String>,
}

/// Client keys, ascending id, with today's and this month's use.
#[utoipa::path(get, path = "/api/admin/keys", tag = "keys", params(KeyQuery),
    responses((status = 200, body = KeyList), (status = "4XX", body = ErrorBody)))]
pub async fn list_keys(State(api): State<AdminApi>, QueryParams(q): QueryParams<KeyQuery>) -> ApiResult<Json<KeyList>> {
    let limit = pagination::limit(q.limit)?;
    let after = pagination::decode_number(q.cursor.as_deref())?.unwrap_or(0);
    let tz = checked_zone(&api, q.tz.as_deref()).await?;
    let (mut rows, ctx) = api.services.keys.list(after, q.search.as_deref(), limit as usize + 1, &tz).await?;
    let next_cursor = pagination::next_cursor(&mut rows, limit, |k| k.id.0.to_string());
    Ok(Json(KeyList { items: rows.into_iter().map(|k| item(k, &ctx)).collect(), next_cursor }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewKey {
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub expires_at: Option<OffsetDateTime>,
    #[serde(default)]
    pub limits: Limits,
    /// `null`/absent = every model; otherwise at least one.
    pub allowed_models: Option<Vec<String>>,
    /// Absent = `allow`.
    pub service_tier_policy: Option<ServiceTierPolicyName>,
    /// Empty/absent = every account (including future ones); otherwise only enabled members of
    /// these groups.
    #[serde(default)]
    pub group_ids: Vec<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct CreatedKey {
    pub key: KeyItem,
    /// The plaintext key. Shown once: only its hash is stored.
    pub secret: String,
}

/// Creates a key and returns its plaintext once. Audited.
#[utoipa::path(post, path = "/api/admin/keys", tag = "keys", request_body = NewKey,
    responses((status = 201, body = CreatedKey), (status = "4XX", body = ErrorBody)))]
pub async fn post_key(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    JsonBody(body): JsonBody<NewKey>,
) -> ApiResult<Response> {
    let spec = KeySpec {
        name: body.name,
        expires_at: body.expires_at,
        limits: ClientKeyLimits::from(&body.limits),
        allowed_models: body.allowed_models,
        service_tier_policy: body.service_tier_policy.map(Into::into).unwrap_or_default(),
        groups: body.group_ids.into_iter().map(GroupId).collect(),
    };
    let (key, ctx, secret) = api.services.keys.create(principal.actor(), spec).await?;
    let body = CreatedKey { key: item(key, &ctx), secret: secret.expose().to_owned() };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

#[utoipa::path(get, path = "/api/admin/keys/{id}", tag = "keys", params(("id" = i64, Path)),
    responses((status = 200, body = KeyItem), (status = "4XX", body = ErrorBody)))]
pub async fn get_key(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<KeyItem>> {
    let (key, ctx) = api.services.keys.get(ClientKeyId(id)).await?;
    Ok(Json(item(key, &ctx)))
}

/// Fields to change; absent fields are kept.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyChanges {
    #[schema(min_length = 1, max_length = 100)]
    pub name: Option<String>,
    pub enabled: Option<bool>,
    /// `null` = never expires.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<Option<String>>,
    /// Replaces all limits.
    pub limits: Option<Limits>,
    /// `null` = every model.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Vec<String>>)]
    pub allowed_models: Option<Option<Vec<String>>>,
    pub service_tier_policy: Option<ServiceTierPolicyName>,
    /// The complete scope; `[]` = every account.
    pub group_ids: Option<Vec<i64>>,
}

#[derive(Serialize, ToSchema)]
pub struct KeyUpdated {
    pub key: KeyItem,
    /// The key before the change (for undo).
    pub previous: KeyItem,
}

/// Edits a key; scope changes are audited as `routing_scope: groups -> all`.
#[utoipa::path(patch, path = "/api/admin/keys/{id}", tag = "keys", params(("id" = i64, Path)),
    request_body = KeyChanges,
    responses((status = 200, body = KeyUpdated), (status = "4XX", body = ErrorBody)))]
pub async fn patch_key(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody<KeyChanges>,
) -> ApiResult<Json<KeyUpdated>> {
    let expires_at = match body.expires_at {
        None => None,
        Some(None) => Some(None),
        Some(Some(text)) => Some(crate::admin::dto::parse_time("expiresAt", Some(&text))?),
    };
    let patch = KeyPatch {
        name: body.name,
        enabled: body.enabled,
        expires_at,
        limits: body.limits.as_ref().map(ClientKeyLimits::from),
        allowed_models: body.allowed_models,
        service_tier_policy: body.service_tier_policy.map(Into::into),
        groups: body.group_ids.map(|g| g.into_iter().map(GroupId).collect()),
    };
    let (before, after, ctx) = api.services.keys.update(principal.actor(), ClientKeyId(id), patch).await?;
    Ok(Json(KeyUpdated { previous: item(before, &ctx), key: item(after, &ctx) }))
}

/// Deletes a key (its request history keeps a null key). Audited.
#[utoipa::path(delete, path = "/api/admin/keys/{id}", tag = "keys", params(("id" = i64, Path)),
    responses((status = 204, description = "deleted"), (status = "4XX", body = ErrorBody)))]
pub async fn remove_key(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
) -> ApiResult<Response> {
    api.services.keys.delete(principal.actor(), ClientKeyId(id)).await?;
    Ok(no_content())
}

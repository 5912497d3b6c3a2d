//! `/api/admin/alerts/*`: alert webhooks (list, create, edit, delete, send a test) and rules
//! (list, edit). Webhooks of the configuration file are listed read-only (`source: config`).
//! Secrets are write-only; every change is audited by `gateway_admin::alert_settings`. Recent
//! deliveries are ops events of kind `alert.delivery` (`GET /api/admin/ops-events`).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use gateway_admin::AdminError;
use gateway_admin::alert_settings::model::shown_url;
use gateway_admin::alert_settings::{AlertRule, AlertWebhookId, AlertWebhookInput, StoredWebhook};
use gateway_admin::alerting::Webhook;
use gateway_admin::auth::AdminPrincipal;
use gateway_core::alerts::AlertKind;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::envelope::{ApiResult, ErrorBody, no_content};
use crate::admin::extract::{IdPath, JsonBody};

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .routes(routes!(list_webhooks, post_webhook))
        .routes(routes!(get_webhook, put_webhook, remove_webhook))
        .routes(routes!(test_webhook))
        .routes(routes!(list_rules))
        .routes(routes!(put_rule))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookView {
    /// `null` for a webhook of the configuration file.
    pub id: Option<i64>,
    /// `database` (managed here) or `config` (`alerts.webhooks`, read-only).
    pub source: &'static str,
    pub name: String,
    /// Without query, fragment or user info.
    pub url: String,
    /// Alert kinds it receives; empty: every kind.
    pub kinds: Vec<String>,
    pub enabled: bool,
    /// Always `true`: the secret is write-only.
    pub has_secret: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    pub created_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub updated_at: Option<OffsetDateTime>,
}

fn kind_names(kinds: &[AlertKind]) -> Vec<String> {
    kinds.iter().map(|k| k.as_str().to_owned()).collect()
}

impl From<StoredWebhook> for WebhookView {
    fn from(w: StoredWebhook) -> Self {
        Self {
            id: Some(w.id.0),
            source: "database",
            name: w.name,
            url: shown_url(&w.url),
            kinds: kind_names(&w.kinds),
            enabled: w.enabled,
            has_secret: true,
            created_at: Some(w.created_at),
            updated_at: Some(w.updated_at),
        }
    }
}

fn configured_view(w: &Webhook) -> WebhookView {
    WebhookView {
        id: None,
        source: "config",
        name: w.name.clone(),
        url: shown_url(&w.url),
        kinds: kind_names(&w.kinds),
        enabled: true,
        has_secret: true,
        created_at: None,
        updated_at: None,
    }
}

#[derive(Serialize, ToSchema)]
pub struct WebhookList {
    pub items: Vec<WebhookView>,
}

/// The configured webhooks, then the stored ones by id (webhooks are few: no pagination).
#[utoipa::path(get, path = "/api/admin/alerts/webhooks", tag = "alerts",
    responses((status = 200, body = WebhookList), (status = "4XX", body = ErrorBody)))]
pub async fn list_webhooks(State(api): State<AdminApi>) -> ApiResult<Json<WebhookList>> {
    let (configured, stored) = api.services.alerts.webhooks().await?;
    let mut items: Vec<WebhookView> = configured.iter().map(configured_view).collect();
    items.extend(stored.into_iter().map(WebhookView::from));
    Ok(Json(WebhookList { items }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WebhookBody {
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    /// `https://…` (plain `http` only to a private address with `admin.allow_private_urls`);
    /// checked by the SSRF guard.
    #[schema(max_length = 2048)]
    pub url: String,
    /// Alert kinds (`account_banned`, `refresh_failing`, `pool_empty`, `quota_exhausted`,
    /// `error_rate`, `backup_failing`); empty or left out: every kind.
    #[serde(default)]
    pub kinds: Vec<String>,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The HMAC-SHA256 key (16 to 256 bytes). Required on create; left out on update keeps it.
    /// Never returned.
    #[schema(min_length = 16, max_length = 256)]
    pub secret: Option<String>,
}

fn yes() -> bool {
    true
}

fn input(body: WebhookBody) -> AlertWebhookInput {
    AlertWebhookInput { name: body.name, url: body.url, kinds: body.kinds, enabled: body.enabled, secret: body.secret }
}

/// Creates a webhook. Audited (never the secret).
#[utoipa::path(post, path = "/api/admin/alerts/webhooks", tag = "alerts", request_body = WebhookBody,
    responses((status = 201, body = WebhookView), (status = "4XX", body = ErrorBody)))]
pub async fn post_webhook(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    JsonBody(body): JsonBody<WebhookBody>,
) -> ApiResult<Response> {
    let created = api.services.alerts.create_webhook(principal.actor(), input(body)).await?;
    Ok((StatusCode::CREATED, Json(WebhookView::from(created))).into_response())
}

#[utoipa::path(get, path = "/api/admin/alerts/webhooks/{id}", tag = "alerts", params(("id" = i64, Path)),
    responses((status = 200, body = WebhookView), (status = "4XX", body = ErrorBody)))]
pub async fn get_webhook(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<WebhookView>> {
    let webhook = api.services.alerts.webhook(AlertWebhookId(id)).await?;
    Ok(Json(webhook.into()))
}

/// Replaces a webhook's name, URL, kinds and `enabled`; the secret only when given. Audited.
#[utoipa::path(put, path = "/api/admin/alerts/webhooks/{id}", tag = "alerts", params(("id" = i64, Path)),
    request_body = WebhookBody,
    responses((status = 200, body = WebhookView), (status = "4XX", body = ErrorBody)))]
pub async fn put_webhook(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody<WebhookBody>,
) -> ApiResult<Json<WebhookView>> {
    let updated = api.services.alerts.update_webhook(principal.actor(), AlertWebhookId(id), input(body)).await?;
    Ok(Json(updated.into()))
}

/// Deletes a webhook. Audited.
#[utoipa::path(delete, path = "/api/admin/alerts/webhooks/{id}", tag = "alerts", params(("id" = i64, Path)),
    responses((status = 204, description = "deleted"), (status = "4XX", body = ErrorBody)))]
pub async fn remove_webhook(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
) -> ApiResult<Response> {
    api.services.alerts.delete_webhook(principal.actor(), AlertWebhookId(id)).await?;
    Ok(no_content())
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestDeliveryView {
    /// The `X-Switchboard-Delivery` id of the POST (also in the `alert.delivery` ops event).
    pub delivery_id: String,
    /// `delivered` (the receiver answered 2xx) or `failed`.
    pub outcome: String,
    /// The receiver's HTTP status, when it answered.
    pub status: Option<u16>,
    /// Why there was no answer.
    pub error: Option<String>,
}

/// Sends one signed `type: "test"` POST to the webhook now (enabled or not; no retry) and
/// answers what the receiver said. Recorded as an `alert.delivery` ops event.
#[utoipa::path(post, path = "/api/admin/alerts/webhooks/{id}/test", tag = "alerts", params(("id" = i64, Path)),
    responses((status = 200, body = TestDeliveryView), (status = "4XX", body = ErrorBody)))]
pub async fn test_webhook(State(api): State<AdminApi>, IdPath(id): IdPath) -> ApiResult<Json<TestDeliveryView>> {
    let result = api.services.alerts.test_webhook(AlertWebhookId(id)).await?;
    Ok(Json(TestDeliveryView {
        delivery_id: result.delivery_id,
        outcome: result.outcome.to_owned(),
        status: result.status,
        error: result.error,
    }))
}

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RuleView {
    /// The alert kind the rule governs.
    #[serde(default)]
    pub kind: String,
    /// Off: alerts of this kind are neither evaluated nor delivered.
    pub enabled: bool,
    /// `error_rate`: fires above this share of failed requests (percent, 0–100).
    pub threshold_percent: f64,
    /// `error_rate`: the window the share is taken over (60–86400 s).
    pub window_seconds: u32,
    /// `error_rate`: fewer requests in the window never fire.
    pub min_requests: u32,
}

impl From<AlertRule> for RuleView {
    fn from(r: AlertRule) -> Self {
        Self {
            kind: r.kind.as_str().to_owned(),
            enabled: r.enabled,
            threshold_percent: r.threshold_percent,
            window_seconds: r.window_seconds,
            min_requests: r.min_requests,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct RuleList {
    pub items: Vec<RuleView>,
}

/// One rule per alert kind.
#[utoipa::path(get, path = "/api/admin/alerts/rules", tag = "alerts",
    responses((status = 200, body = RuleList), (status = "4XX", body = ErrorBody)))]
pub async fn list_rules(State(api): State<AdminApi>) -> ApiResult<Json<RuleList>> {
    let rules = api.services.alerts.rules().await?;
    Ok(Json(RuleList { items: rules.into_iter().map(RuleView::from).collect() }))
}

/// Replaces the rule of `kind`. Audited.
#[utoipa::path(put, path = "/api/admin/alerts/rules/{kind}", tag = "alerts", params(("kind" = String, Path)),
    request_body = RuleView,
    responses((status = 200, body = RuleView), (status = "4XX", body = ErrorBody)))]
pub async fn put_rule(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    Path(kind): Path<String>,
    JsonBody(body): JsonBody<RuleView>,
) -> ApiResult<Json<RuleView>> {
    let kind = kind.parse::<AlertKind>().map_err(|_| AdminError::NotFound(format!("alert rule {kind}")))?;
    if !body.kind.is_empty() && body.kind != kind.as_str() {
        return Err(AdminError::invalid("kind", "does not match the path").into());
    }
    let rule = AlertRule {
        kind,
        enabled: body.enabled,
        threshold_percent: body.threshold_percent,
        window_seconds: body.window_seconds,
        min_requests: body.min_requests,
    };
    Ok(Json(api.services.alerts.update_rule(principal.actor(), rule).await?.into()))
}

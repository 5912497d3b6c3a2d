//! The egress proxy health probe (issue 18, decision 0246): `POST /api/admin/egress-proxies/check`
//! probes a URL not stored yet (the same checks as setting it), `POST
//! /api/admin/accounts/{id}/egress-proxy/check` the proxy that applies to the account (its own,
//! its group's or the default). A probe opens a tunnel through the proxy to the provider's
//! configured upstream origin, does the TLS handshake when the origin is `https` and closes it:
//! no request is sent, no account token used. The answer says whether the proxy is reachable,
//! which phase failed and how long each took; never the proxy's credentials.

use axum::extract::State;
use axum::{Extension, Json};
use gateway_admin::auth::AdminPrincipal;
use gateway_admin::egress_proxies::applying::ProxySource;
use gateway_admin::egress_proxies::check::ProxyCheck;
use gateway_core::domain::AccountId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::dto::Provider;
use crate::admin::envelope::{ApiResult, ErrorBody};
use crate::admin::extract::{IdPath, JsonBody};

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new().routes(routes!(check_proxy_url)).routes(routes!(check_account_proxy))
}

/// A proxy to probe before it is set, and the provider whose upstream origin the tunnel goes to.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProxyCheckBody {
    /// `http://[user:pass@]host[:port]` or `socks5://[user:pass@]host[:port]` (write-only).
    #[schema(max_length = 2048)]
    pub url: String,
    #[schema(inline)]
    pub provider: Provider,
}

/// Where the probed proxy comes from.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProxySourceView {
    Account,
    Group,
    Default,
}

/// One phase that ran.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbePhaseView {
    /// `proxy_connect`, `proxy_auth`, `tunnel` or `tls`.
    pub phase: String,
    pub ms: u64,
    pub ok: bool,
}

/// What a probe found.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProxyCheckView {
    /// The proxy, `scheme://host:port` without user info.
    pub proxy: String,
    pub has_credentials: bool,
    /// For an account's probe: where the proxy that applies comes from.
    #[schema(inline)]
    pub source: Option<ProxySourceView>,
    /// The group whose proxy applies (`source: group`).
    pub group_id: Option<i64>,
    #[schema(inline)]
    pub provider: Provider,
    /// The upstream origin the tunnel went to.
    pub origin: String,
    pub reachable: bool,
    /// The first phase that failed: `proxy_connect`, `proxy_auth`, `tunnel` or `tls`.
    pub failed_phase: Option<String>,
    /// Why it failed; never the proxy's credentials.
    pub message: Option<String>,
    /// The phases that ran, in order.
    pub phases: Vec<ProbePhaseView>,
    pub total_ms: u64,
}

impl From<ProxyCheck> for ProxyCheckView {
    fn from(check: ProxyCheck) -> Self {
        let (source, group_id) = match check.source {
            None => (None, None),
            Some(ProxySource::Account) => (Some(ProxySourceView::Account), None),
            Some(ProxySource::Group(id)) => (Some(ProxySourceView::Group), Some(id.0)),
            Some(ProxySource::Default) => (Some(ProxySourceView::Default), None),
        };
        let outcome = check.outcome;
        let phases: Vec<ProbePhaseView> = outcome
            .phases
            .iter()
            .map(|p| ProbePhaseView { phase: p.phase.to_owned(), ms: p.millis, ok: p.ok })
            .collect();
        Self {
            proxy: check.proxy,
            has_credentials: check.has_credentials,
            source,
            group_id,
            provider: check.provider.into(),
            origin: outcome.origin,
            reachable: outcome.reachable,
            failed_phase: outcome.failed_phase.map(str::to_owned),
            message: outcome.message,
            total_ms: phases.iter().map(|p| p.ms).sum(),
            phases,
        }
    }
}

/// Probes a proxy URL before it is set: the URL rules and the SSRF guard first, then a tunnel
/// to the provider's upstream origin and the TLS handshake. An unreachable proxy is a `200`
/// answer with `reachable: false`.
#[utoipa::path(post, path = "/api/admin/egress-proxies/check", tag = "accounts",
    request_body = ProxyCheckBody,
    responses((status = 200, body = ProxyCheckView), (status = "4XX", body = ErrorBody)))]
pub async fn check_proxy_url(
    State(api): State<AdminApi>,
    Extension(_principal): Extension<AdminPrincipal>,
    JsonBody(body): JsonBody<ProxyCheckBody>,
) -> ApiResult<Json<ProxyCheckView>> {
    let check = api.services.accounts.check_proxy_url(body.provider.into(), &body.url).await?;
    Ok(Json(check.into()))
}

/// Probes the proxy that applies to the account (its own, else its group's, else the default)
/// towards its provider's upstream origin; `409` when none applies.
#[utoipa::path(post, path = "/api/admin/accounts/{id}/egress-proxy/check", tag = "accounts",
    params(("id" = i64, Path)),
    responses((status = 200, body = ProxyCheckView), (status = "4XX", body = ErrorBody)))]
pub async fn check_account_proxy(
    State(api): State<AdminApi>,
    Extension(_principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
) -> ApiResult<Json<ProxyCheckView>> {
    let check = api.services.accounts.check_account_proxy(AccountId(id)).await?;
    Ok(Json(check.into()))
}

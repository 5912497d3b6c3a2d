//! `/api/admin/{accounts,groups}/{id}/egress-proxy`: set (`PUT`, the URL write-only) or clear
//! (`DELETE`) the egress proxy of an account or a group (decisions 0241, 0243). Views show the
//! proxy without its user info ([`EgressProxyView`]). Audited.

use axum::extract::State;
use axum::response::Response;
use axum::{Extension, Json};
use gateway_admin::auth::AdminPrincipal;
use gateway_admin::egress_proxies::ProxyOwner;
use gateway_core::domain::{AccountId, EgressProxy, GroupId};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::envelope::{ApiResult, ErrorBody, no_content};
use crate::admin::extract::{IdPath, JsonBody};

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .routes(routes!(put_account_proxy, delete_account_proxy))
        .routes(routes!(put_group_proxy, delete_group_proxy))
}

/// An egress proxy as views show it: never its user info.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EgressProxyView {
    /// `http://host:port` (HTTP CONNECT) or `socks5://host:port`, without user info.
    pub url: String,
    /// Whether a user name / password is stored with it (never shown).
    pub has_credentials: bool,
    /// `false` when the stored URL does not open under the configured keys: an account behind
    /// it is not used until the proxy is set again.
    pub readable: bool,
}

impl From<&EgressProxy> for EgressProxyView {
    fn from(proxy: &EgressProxy) -> Self {
        Self {
            url: proxy.display().to_owned(),
            has_credentials: proxy.has_credentials(),
            readable: proxy.is_readable(),
        }
    }
}

impl EgressProxyView {
    pub fn of(proxy: Option<&EgressProxy>) -> Option<Self> {
        proxy.map(Self::from)
    }
}

/// The proxy to set: `http://[user:pass@]host[:port]` or `socks5://[user:pass@]host[:port]`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProxyBody {
    pub url: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProxySet {
    pub egress_proxy: Option<EgressProxyView>,
}

async fn set(
    api: &AdminApi,
    principal: &AdminPrincipal,
    owner: ProxyOwner,
    url: Option<&str>,
) -> ApiResult<Option<EgressProxy>> {
    let stored = api.services.accounts.set_egress_proxy(principal.actor(), owner, url).await?;
    Ok(stored)
}

/// Sets the account's egress proxy (it wins over its groups'). The URL is sealed at rest and
/// never returned.
#[utoipa::path(put, path = "/api/admin/accounts/{id}/egress-proxy", tag = "accounts",
    params(("id" = i64, Path)), request_body = ProxyBody,
    responses((status = 200, body = ProxySet), (status = "4XX", body = ErrorBody)))]
pub async fn put_account_proxy(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody<ProxyBody>,
) -> ApiResult<Json<ProxySet>> {
    let stored = set(&api, &principal, ProxyOwner::Account(AccountId(id)), Some(&body.url)).await?;
    Ok(Json(ProxySet { egress_proxy: EgressProxyView::of(stored.as_ref()) }))
}

/// Clears the account's own egress proxy (a group's proxy applies again, if any).
#[utoipa::path(delete, path = "/api/admin/accounts/{id}/egress-proxy", tag = "accounts",
    params(("id" = i64, Path)),
    responses((status = 204, description = "cleared"), (status = "4XX", body = ErrorBody)))]
pub async fn delete_account_proxy(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
) -> ApiResult<Response> {
    set(&api, &principal, ProxyOwner::Account(AccountId(id)), None).await?;
    Ok(no_content())
}

/// Sets the group's egress proxy: members without their own use it (the lowest-id group with a
/// proxy when an account is in several).
#[utoipa::path(put, path = "/api/admin/groups/{id}/egress-proxy", tag = "groups",
    params(("id" = i64, Path)), request_body = ProxyBody,
    responses((status = 200, body = ProxySet), (status = "4XX", body = ErrorBody)))]
pub async fn put_group_proxy(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody<ProxyBody>,
) -> ApiResult<Json<ProxySet>> {
    let stored = set(&api, &principal, ProxyOwner::Group(GroupId(id)), Some(&body.url)).await?;
    Ok(Json(ProxySet { egress_proxy: EgressProxyView::of(stored.as_ref()) }))
}

/// Clears the group's egress proxy.
#[utoipa::path(delete, path = "/api/admin/groups/{id}/egress-proxy", tag = "groups",
    params(("id" = i64, Path)),
    responses((status = 204, description = "cleared"), (status = "4XX", body = ErrorBody)))]
pub async fn delete_group_proxy(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
    IdPath(id): IdPath,
) -> ApiResult<Response> {
    set(&api, &principal, ProxyOwner::Group(GroupId(id)), None).await?;
    Ok(no_content())
}

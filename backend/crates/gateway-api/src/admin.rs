//! The admin API under `/api/admin/*`: login and sessions, accounts, groups, client keys,
//! runtime and backup settings, alert webhooks and rules, usage, dashboard, audit, ops events, a live event stream, and
//! its OpenAPI 3.1 document at `/api/admin/openapi.json` (generated from these handlers with
//! utoipa: a route exists exactly when it is in the document).
//!
//! Every response carries `Cache-Control: no-store` and an `X-Request-Id`; every error is the envelope of
//! [`envelope`]. Handlers decode, call one method of a `gateway-admin` use-case service
//! (`gateway_admin::services`), and encode.

mod account_view;
mod accounts;
mod alert_routes;
mod audit_routes;
mod auth_routes;
mod backup_routes;
mod dashboard;
mod dto;
mod egress_proxy_check_routes;
mod egress_proxy_routes;
mod envelope;
mod extract;
mod groups;
mod keys;
mod live_events;
mod oauth_routes;
mod ops_routes;
mod pagination;
mod request_id;
mod session_auth;
mod settings_routes;
mod system;
mod system_update;
mod two_factor_routes;
mod usage_routes;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn_with_state, map_response};
use gateway_admin::auth::TrustedProxies;
use gateway_admin::services::AdminServices;
use utoipa::OpenApi;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use dto::{Provider, RequestStatusName, RoutingScopeName, SendStateName, TransportName};
pub use envelope::{ErrorBody, ErrorDetail, FieldProblem};
pub use gateway_admin::services::{AdminPorts, AlertPorts, AuthSettings};
pub use session_auth::{CSRF_HEADER, DEVICE_COOKIE, SESSION_COOKIE};

/// HTTP-level admin settings (from the `admin` config section).
#[derive(Debug, Clone)]
pub struct AdminHttpConfig {
    /// Always mark the session cookie `Secure`.
    pub cookie_secure: bool,
    /// Whose `X-Forwarded-For` / `X-Forwarded-Proto` count (a TLS-terminating proxy in front).
    pub proxies: TrustedProxies,
    /// How often the live stream re-reads account state and ops events.
    pub live_poll: Duration,
    pub version: String,
}

/// The admin API's state: the use-case services of `gateway-admin`, this process's
/// self-update, and the HTTP configuration.
#[derive(Clone)]
pub struct AdminApi {
    pub services: Arc<AdminServices>,
    /// This process's self-update (check, update, rollback, restart, progress).
    pub updates: gateway_host::update::Updater,
    pub config: Arc<AdminHttpConfig>,
    openapi: Arc<serde_json::Value>,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Switchboard admin API",
        description = "Admin API of the Switchboard gateway. Authenticate with the `sb_admin_session` cookie \
            from `POST /api/admin/auth/login` (unsafe methods also need the `X-Switchboard-CSRF` header with the \
            session's `csrfToken`) or with `Authorization: Bearer sb-admin-…` (an admin API key). \
            Errors use the envelope `{\"error\": {\"code\", \"message\", \"fields\"}}`. Lists are cursor-paginated. \
            Every response has `Cache-Control: no-store`."
    ),
    modifiers(&SecuritySchemes),
    components(schemas(ErrorBody))
)]
struct ApiDoc;

struct SecuritySchemes;

impl utoipa::Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "session_cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(SESSION_COOKIE))),
        );
        components.add_security_scheme(
            "admin_api_key",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        openapi.security = Some(vec![
            utoipa::openapi::security::SecurityRequirement::new("session_cookie", Vec::<String>::new()),
            utoipa::openapi::security::SecurityRequirement::new("admin_api_key", Vec::<String>::new()),
        ]);
    }
}

fn public_routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new().routes(routes!(auth_routes::login)).routes(routes!(system::openapi_json))
}

fn protected_routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new()
        .merge(auth_routes::routes())
        .merge(two_factor_routes::routes())
        .merge(accounts::routes())
        .merge(oauth_routes::routes())
        .merge(groups::routes())
        .merge(egress_proxy_routes::routes())
        .merge(egress_proxy_check_routes::routes())
        .merge(keys::routes())
        .merge(settings_routes::routes())
        .merge(backup_routes::routes())
        .merge(alert_routes::routes())
        .merge(usage_routes::routes())
        .merge(dashboard::routes())
        .merge(audit_routes::routes())
        .merge(ops_routes::routes())
        .merge(system::routes())
        .merge(system_update::routes())
        .merge(live_events::routes())
}

/// The OpenAPI 3.1 document of every admin route.
pub fn admin_openapi() -> utoipa::openapi::OpenApi {
    OpenApiRouter::<AdminApi>::with_openapi(ApiDoc::openapi())
        .merge(public_routes())
        .merge(protected_routes())
        .into_openapi()
}

/// The admin router (state applied); merge it into the server's router.
pub fn admin_routes(
    services: Arc<AdminServices>,
    updates: gateway_host::update::Updater,
    config: AdminHttpConfig,
) -> Router {
    let openapi = Arc::new(serde_json::to_value(admin_openapi()).unwrap_or_default());
    let api = AdminApi { services, updates, config: Arc::new(config), openapi };
    // `route_layer`: authentication guards the admin routes only, never the fallback, so a path
    // no router claims is not sent through the session store.
    let protected = protected_routes().route_layer(from_fn_with_state(api.clone(), session_auth::require_admin));
    let (router, _) =
        OpenApiRouter::with_openapi(ApiDoc::openapi()).merge(public_routes()).merge(protected).split_for_parts();
    router
        .method_not_allowed_fallback(envelope::method_not_allowed)
        .route("/api/admin", axum::routing::any(envelope::route_not_found))
        .route("/api/admin/{*rest}", axum::routing::any(envelope::route_not_found))
        .layer(DefaultBodyLimit::max(extract::BODY_LIMIT))
        .layer(map_response(envelope::no_store))
        .layer(axum::middleware::from_fn(request_id::tag))
        .with_state(api)
}

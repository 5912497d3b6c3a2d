//! The admin API under `/api/admin/*`: login and sessions, accounts, groups, client keys,
//! runtime and backup settings, alert webhooks and rules, usage, dashboard, audit, ops events, a live event stream, and
//! its OpenAPI 3.1 document at `/api/admin/openapi.json` (generated from these handlers with
//! utoipa: a route exists exactly when it is in the document).
//!
//! Every response carries `Cache-Control: no-store` and an `X-Request-Id`; every error is the envelope of
//! [`envelope`]. Handlers decode, call a `gateway-admin` use case or port, and encode.

mod account_view;
mod accounts;
mod alert_routes;
mod audit_routes;
mod auth_routes;
mod backup_routes;
mod dashboard;
mod dto;
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
use gateway_admin::auth::device_cookie::{DeviceCookieKey, DeviceCookies};
use gateway_admin::auth::standing::ROSTER_MAX_AGE;
use gateway_admin::auth::{AdminStandings, AuthPolicy, PasswordGuard, TrustedProxies};
use gateway_admin::oauth::OAuthLogins;
use gateway_admin::ports::{
    AccountActions, AccountDirectory, AdminSessions, AdminUsers, AuditSearch, AuditTrail, BackupJobs,
    ClientKeyDirectory, GroupDirectory, InFlightCounts, LoginThrottle, OpsEventQueries, RuntimeSettingsReader,
    UnitOfWork, UsageQueries,
};
use gateway_admin::url_guard::UrlGuard;
use gateway_core::coordination::{ChangeNotifier, Cooldowns};
use gateway_core::credential_import::CredentialImporter;
use utoipa::OpenApi;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use alert_routes::AlertPorts;
pub use envelope::{ErrorBody, ErrorDetail, FieldProblem};
pub use session_auth::{CSRF_HEADER, DEVICE_COOKIE, SESSION_COOKIE};

/// The ports the admin API reads and writes through (implemented by the store, Redis and the
/// providers; wired by the composition root).
pub struct AdminPorts {
    /// Mutations; should publish committed revisions (`PublishingUnitOfWork`).
    pub uow: Arc<dyn UnitOfWork>,
    pub users: Arc<dyn AdminUsers>,
    pub sessions: Arc<dyn AdminSessions>,
    pub throttle: Arc<dyn LoginThrottle>,
    pub accounts: Arc<dyn AccountDirectory>,
    pub groups: Arc<dyn GroupDirectory>,
    pub keys: Arc<dyn ClientKeyDirectory>,
    pub settings: Arc<dyn RuntimeSettingsReader>,
    pub audit: Arc<dyn AuditTrail>,
    pub audit_search: Arc<dyn AuditSearch>,
    pub usage: Arc<dyn UsageQueries>,
    pub ops: Arc<dyn OpsEventQueries>,
    pub backups: Arc<dyn BackupJobs>,
    /// Runs, verifies, deletes and links backups (the same daemon the worker ticks).
    pub backup_daemon: Arc<gateway_admin::backup_daemon::BackupDaemon>,
    pub cooldowns: Arc<dyn Cooldowns>,
    pub in_flight: Arc<dyn InFlightCounts>,
    pub notifier: Arc<dyn ChangeNotifier>,
    /// One per provider that can import/export credentials.
    pub importers: Vec<Arc<dyn CredentialImporter>>,
    /// Refresh now, quota probe now, connection test.
    pub actions: Arc<dyn AccountActions>,
    /// Browser and device logins of upstream accounts (new accounts and re-authorisation).
    pub logins: Arc<OAuthLogins>,
    /// The SSRF guard for admin-set URLs (the backup endpoint).
    pub url_guard: Arc<UrlGuard>,
    /// This process's self-update (check, update, rollback, restart, progress).
    pub updates: gateway_host::update::Updater,
    /// Alert webhooks and rules (stored and configured), and the transport a test uses.
    pub alerts: AlertPorts,
}

/// HTTP-level admin settings (from the `admin` config section).
#[derive(Debug, Clone)]
pub struct AdminHttpConfig {
    pub policy: AuthPolicy,
    /// Signs the device cookies (`Debug` hides it).
    pub device_key: DeviceCookieKey,
    /// Always mark the session cookie `Secure`.
    pub cookie_secure: bool,
    /// Whose `X-Forwarded-For` / `X-Forwarded-Proto` count (a TLS-terminating proxy in front).
    pub proxies: TrustedProxies,
    /// How often the live stream re-reads account state and ops events.
    pub live_poll: Duration,
    pub version: String,
}

#[derive(Clone)]
pub struct AdminApi {
    pub ports: Arc<AdminPorts>,
    pub config: Arc<AdminHttpConfig>,
    /// Every password a request sends is checked through it (login limits, hashing bound).
    pub guard: Arc<PasswordGuard>,
    /// The admins sessions are checked against (enabled, credential stamp).
    pub standings: Arc<AdminStandings>,
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
pub fn admin_routes(ports: AdminPorts, config: AdminHttpConfig) -> Router {
    let openapi = serde_json::to_value(admin_openapi()).unwrap_or_default();
    let devices = DeviceCookies::new(config.device_key.clone(), config.policy.device_cookie_lifetime);
    let guard = Arc::new(PasswordGuard::new(Arc::clone(&ports.throttle), devices, &config.policy));
    let standings = Arc::new(AdminStandings::new(Arc::clone(&ports.users), ROSTER_MAX_AGE));
    let (ports, config, openapi) = (Arc::new(ports), Arc::new(config), Arc::new(openapi));
    let api = AdminApi { ports, config, guard, standings, openapi };
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

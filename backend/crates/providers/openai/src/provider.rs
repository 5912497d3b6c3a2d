//! `OpenAiProvider`: the provider port over the Codex backend, plus the parts the account
//! workers use (catalog source, usage probe, renewer, OAuth, version check).

use std::sync::Arc;

use async_trait::async_trait;
use gateway_core::catalog::{CatalogBook, SyncedEntry, plan_key};
use gateway_core::credential_refresh::CredentialRefresher;
use gateway_core::domain::{AccountId, CredentialRevision, ProviderKind};
use gateway_core::ports::CredentialStore;
use gateway_core::provider::{AttemptFailure, ModelInfo, Provider, UpstreamCall, UpstreamReply};
use gateway_core::provider_credentials::ProviderCredentials;
use gateway_core::snapshot::AccountEntry;
use gateway_transport::{Connector, HttpClient, TlsRoots};

use crate::catalog;
use crate::cookie_jars::AccountCookies;
use crate::credential::OpenAiCredential;
use crate::oauth::OpenAiOAuth;
use crate::refresh::Refresher;
use crate::renewer::OpenAiRenewer;
use crate::request_profile::{ProfileHolder, RequestProfile};
use crate::settings::{CheckedUrls, InvalidSetting, OpenAiSetting, OpenAiSettings};
use crate::socket_route::SocketRoute;
use crate::transport::Transport;
use crate::upstream_url::{UrlRefused, checked_appcast_url};
use crate::version_check::VersionCheck;
use crate::websocket::{PoolLimits, PrewarmMemory, SocketPool, WsEndpoint};

pub struct OpenAiProvider {
    transport: Transport,
    sockets: SocketRoute,
    refresher: Refresher,
    /// The one upstream client (gateway-transport) for every call this provider makes.
    http: HttpClient,
    backend_url: String,
    auth_url: String,
    client_id: String,
    allow_http_loopback: bool,
    profile: ProfileHolder,
    catalog: Arc<CatalogBook>,
    /// The newest credential known per account, and the one refresh path (single-flight across
    /// replicas; absent in command-line tools that only import).
    credentials: ProviderCredentials<OpenAiCredential>,
    /// Each account's cookies, shared by the HTTP transport and the WebSocket route.
    cookies: Arc<AccountCookies>,
}

impl OpenAiProvider {
    /// The provider over `settings`; every setting is checked first ([`OpenAiSettings::check`]).
    pub fn new(settings: &OpenAiSettings, credentials: Arc<dyn CredentialStore>) -> Result<Self, InvalidSetting> {
        let CheckedUrls { backend, auth } = settings.check()?;
        let invalid = |setting, reason: String| InvalidSetting { setting, reason };
        let roots = TlsRoots::new(settings.extra_ca_file.as_deref())
            .map_err(|e| invalid(OpenAiSetting::ExtraCaFile, e.to_string()))?;
        let connector = Connector::new(roots, std::time::Duration::from_secs(10))
            .with_proxy_addresses(settings.proxy_addresses.clone());
        let http = HttpClient::new(connector);
        let profile =
            RequestProfile::from_settings(settings).map_err(|e| invalid(OpenAiSetting::UserAgent, e.to_string()))?;
        let profile = ProfileHolder::new(profile, settings.user_agent.clone());
        let catalog = Arc::new(CatalogBook::new(catalog::fallback_models()));
        let cookies = Arc::new(AccountCookies::default());
        let ws_url = WsEndpoint::for_backend(&backend);
        let cookie_url = url::Url::parse(&format!("{}/codex/responses", backend.trim_end_matches('/')))
            .map_err(|e| invalid(OpenAiSetting::BackendUrl, e.to_string()))?;
        let transport = Transport::new(
            http.clone(),
            &backend,
            profile.clone(),
            catalog.clone(),
            settings.stream_idle_timeout,
            settings.identity_key.clone(),
            cookies.clone(),
        )
        .map_err(|e| invalid(OpenAiSetting::BackendUrl, e.to_string()))?;
        let sockets = SocketRoute {
            pool: SocketPool::new(PoolLimits::default()),
            prewarms: PrewarmMemory::new(settings.prewarm_budget),
            endpoint: WsEndpoint {
                connector: http.connector().clone(),
                url: ws_url,
                profile: profile.clone(),
                connect_timeout: std::time::Duration::from_secs(15),
                message_limit: settings.request_body_limit,
                cookies: cookies.clone(),
                cookie_url,
            },
            first_frame_timeout: settings.header_timeout,
            idle_timeout: settings.stream_idle_timeout,
        };
        Ok(Self {
            transport,
            sockets,
            refresher: Refresher::new(
                http.clone(),
                profile.clone(),
                &auth,
                &settings.client_id,
                settings.refresh_timeout,
            ),
            http,
            backend_url: backend,
            auth_url: auth,
            client_id: settings.client_id.clone(),
            allow_http_loopback: settings.allow_http_loopback,
            profile,
            catalog,
            credentials: ProviderCredentials::new(credentials),
            cookies,
        })
    }

    /// Each account's cookie jar (the `cookie-jars` worker stores and loads them).
    pub fn cookies(&self) -> Arc<AccountCookies> {
        self.cookies.clone()
    }

    /// Routes 401 recovery through the shared single-flight refresher.
    pub fn with_refresher(mut self, refresher: Arc<CredentialRefresher>) -> Self {
        self.credentials = self.credentials.with_refresher(refresher);
        self
    }

    /// The refresh-token exchange as the core refresher's renewer.
    pub fn renewer(&self) -> OpenAiRenewer {
        OpenAiRenewer::new(self.refresher.clone())
    }

    /// Browser and device logins.
    pub fn oauth(&self) -> OpenAiOAuth {
        OpenAiOAuth::new(self.http.clone(), self.auth_url.clone(), self.client_id.clone(), self.profile.clone())
    }

    /// The version check against `appcast_url` (same SSRF rule as the upstream URLs).
    pub fn version_check(&self, appcast_url: &str) -> Result<VersionCheck, UrlRefused> {
        let url = checked_appcast_url(appcast_url, self.allow_http_loopback)?;
        Ok(VersionCheck::new(self.http.clone(), url, self.profile.clone(), std::time::Duration::from_secs(20)))
    }

    pub fn catalog(&self) -> &Arc<CatalogBook> {
        &self.catalog
    }

    pub fn profile(&self) -> &ProfileHolder {
        &self.profile
    }

    pub(crate) fn refresher(&self) -> &Refresher {
        &self.refresher
    }

    pub(crate) fn http(&self) -> &HttpClient {
        &self.http
    }

    pub(crate) fn backend_url(&self) -> &str {
        &self.backend_url
    }

    /// The credential to use for `account` and its revision (see [`ProviderCredentials::current`]).
    pub(crate) fn credential_for(
        &self,
        account: &AccountEntry,
    ) -> Result<(CredentialRevision, Arc<OpenAiCredential>), AttemptFailure> {
        self.credentials.current(account)
    }

    /// The newest stored credential, off the hot path (see [`ProviderCredentials::freshest`]).
    pub(crate) async fn freshest_credential(
        &self,
        account: &AccountEntry,
    ) -> Result<Arc<OpenAiCredential>, AttemptFailure> {
        self.credentials.freshest(account).await
    }
}

#[async_trait]
impl Provider for OpenAiProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    fn supports_model(&self, account: &AccountEntry, model: &str) -> bool {
        self.catalog.supports(plan_key(account), model)
    }

    fn catalog_generation(&self) -> u64 {
        self.catalog.generation()
    }

    fn models(&self, account: &AccountEntry) -> Vec<ModelInfo> {
        self.catalog.models(plan_key(account))
    }

    fn catalog_entry(&self, account: &AccountEntry, model: &str) -> Option<SyncedEntry> {
        self.catalog.entry(plan_key(account), model)
    }

    async fn execute(&self, call: UpstreamCall<'_>) -> Result<UpstreamReply, AttemptFailure> {
        let (_, credential) = self.credential_for(call.account)?;
        match call.route {
            gateway_core::provider::UpstreamRoute::Http => self.transport.send(&call, &credential).await,
            _ => self.sockets.execute(&call, &credential, &self.transport).await,
        }
    }

    async fn recover_credential(&self, account: AccountId) -> Result<(), AttemptFailure> {
        self.credentials.recover(account).await
    }
}

impl gateway_core::telemetry::SocketPoolSource for OpenAiProvider {
    fn socket_pool(&self) -> gateway_core::telemetry::SocketPoolStats {
        self.sockets.pool.stats()
    }
}

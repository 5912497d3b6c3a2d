//! `XaiProvider`: the provider port over the Grok CLI proxy, plus the parts the account
//! workers use (importer, renewer, OAuth, catalog source, billing probe, version check).

use std::sync::Arc;

use async_trait::async_trait;
use gateway_core::catalog::{CatalogBook, plan_key};
use gateway_core::credential_refresh::CredentialRefresher;
use gateway_core::domain::{AccountId, CredentialRevision, ProviderKind, SendState};
use gateway_core::fault::Fault;
use gateway_core::ports::CredentialStore;
use gateway_core::provider::{
    AttemptFailure, ModelInfo, Operation, Provider, UpstreamCall, UpstreamReply, UpstreamRoute,
};
use gateway_core::provider_credentials::ProviderCredentials;
use gateway_core::snapshot::AccountEntry;
use gateway_protocol::request::RequestBody;
use gateway_transport::{Connector, HttpClient, TlsRoots};

use crate::continuation::Transcripts;
use crate::credential::XaiCredential;
use crate::models::{ModelMap, fallback_models};
use crate::refresh::Refresher;
use crate::settings::{CheckedUrls, InvalidSetting, XaiSetting, XaiSettings};
use crate::transport::{Continuing, Transport};
use crate::version_check::{ClientVersion, VersionCheck};

pub struct XaiProvider {
    transport: Transport,
    refresher: Refresher,
    http: HttpClient,
    urls: CheckedUrls,
    client_id: String,
    version: ClientVersion,
    models: ModelMap,
    catalog: Arc<CatalogBook>,
    credentials: ProviderCredentials<XaiCredential>,
}

impl XaiProvider {
    pub fn new(settings: &XaiSettings, credentials: Arc<dyn CredentialStore>) -> Result<Self, InvalidSetting> {
        let urls = settings.check()?;
        let invalid = |setting, reason: String| InvalidSetting { setting, reason };
        let roots = TlsRoots::new(settings.extra_ca_file.as_deref())
            .map_err(|e| invalid(XaiSetting::ExtraCaFile, e.to_string()))?;
        let connector = Connector::new(roots, std::time::Duration::from_secs(10))
            .with_proxy_addresses(settings.proxy_addresses.clone());
        let http = HttpClient::new(connector);
        let version = ClientVersion::new(&settings.client_version);
        let transport =
            Transport::new(http.clone(), (&urls.inference, &urls.api), version.clone(), settings.stream_idle_timeout)
                .map_err(|e| invalid(XaiSetting::InferenceUrl, e))?;
        let refresher =
            Refresher::new(http.clone(), &urls.issuer, &settings.client_id, version.clone(), settings.refresh_timeout);
        Ok(Self {
            transport,
            refresher,
            http,
            urls,
            client_id: settings.client_id.clone(),
            version,
            models: ModelMap::new(settings.model_map.clone()),
            catalog: Arc::new(CatalogBook::new(fallback_models())),
            credentials: ProviderCredentials::new(credentials),
        })
    }

    /// Routes 401 recovery through the shared single-flight refresher.
    pub fn with_refresher(mut self, refresher: Arc<CredentialRefresher>) -> Self {
        self.credentials = self.credentials.with_refresher(refresher);
        self
    }

    /// Keeps continuation transcripts in `store` (the coordination store), so a
    /// `previous_response_id` xAI cannot continue natively is replayed (PROTOCOL H.3).
    pub fn with_transcripts(mut self, store: Arc<dyn gateway_core::coordination::TranscriptStore>) -> Self {
        self.transport.keep_transcripts(Arc::new(Transcripts::new(store)));
        self
    }

    pub fn renewer(&self) -> crate::renewer::XaiRenewer {
        crate::renewer::XaiRenewer::new(self.refresher.clone())
    }

    pub fn oauth(&self) -> crate::oauth::XaiOAuth {
        crate::oauth::XaiOAuth::new(self.http.clone(), &self.urls.issuer, &self.client_id, self.refresher.clone())
    }

    /// The version check against the configured npm registry, when one is configured.
    pub fn version_check(&self) -> Option<VersionCheck> {
        let registry = self.urls.npm.as_deref()?;
        Some(VersionCheck::new(self.http.clone(), registry, self.version.clone(), std::time::Duration::from_secs(20)))
    }

    pub fn client_version(&self) -> &ClientVersion {
        &self.version
    }

    pub fn catalog(&self) -> &Arc<CatalogBook> {
        &self.catalog
    }

    pub(crate) fn refresher(&self) -> &Refresher {
        &self.refresher
    }

    pub(crate) fn http(&self) -> &HttpClient {
        &self.http
    }

    pub(crate) fn inference_url(&self) -> &str {
        &self.urls.inference
    }

    /// The credential to use for `account` and its revision (see [`ProviderCredentials::current`]).
    pub(crate) fn credential_for(
        &self,
        account: &AccountEntry,
    ) -> Result<(CredentialRevision, Arc<XaiCredential>), AttemptFailure> {
        self.credentials.current(account)
    }

    /// How `call` continues an earlier response (PROTOCOL H.3). Native: the engine routed a
    /// pinned response to its owner and the pinned upstream id goes back in (with the held
    /// transcript, if any, for the fallback). Replay: any other `previous_response_id`, from the
    /// transcript the client key holds for it. Without one it is `previous_response_not_found`:
    /// official clients resend the history.
    async fn continuing<'c>(&self, call: &'c UpstreamCall<'_>) -> Result<Continuing<'c>, AttemptFailure> {
        let lost = |why: &'static str| AttemptFailure::new(Fault::PreviousResponseNotFound, SendState::NotSent, why);
        let transcripts = self.transport.transcripts();
        if let UpstreamRoute::Continue { response_id, .. } = call.route {
            let held = match transcripts {
                Some(transcripts) if call.operation != Operation::ResponsesCompact => {
                    transcripts.load(call.client_key, response_id).await
                }
                _ => None,
            };
            return Ok(Continuing::Native { id: response_id, held });
        }
        let Some(previous) = call.view.string(call.body, "previous_response_id").ok().flatten() else {
            return Ok(Continuing::No);
        };
        let Some(transcripts) = transcripts.filter(|_| call.operation != Operation::ResponsesCompact) else {
            return Err(lost("no stored xAI response to continue"));
        };
        match transcripts.load(call.client_key, &previous).await {
            Some(held) => Ok(Continuing::Replay(held)),
            None => Err(lost("no transcript of the xAI response to continue")),
        }
    }

    /// The newest stored credential, off the hot path (see [`ProviderCredentials::freshest`]).
    pub(crate) async fn freshest_credential(
        &self,
        account: &AccountEntry,
    ) -> Result<Arc<XaiCredential>, AttemptFailure> {
        self.credentials.freshest(account).await
    }
}

#[async_trait]
impl Provider for XaiProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Xai
    }

    fn supports_model(&self, account: &AccountEntry, model: &str) -> bool {
        self.catalog.supports(plan_key(account), &self.models.upstream(model))
    }

    fn catalog_generation(&self) -> u64 {
        self.catalog.generation()
    }

    fn models(&self, account: &AccountEntry) -> Vec<ModelInfo> {
        self.catalog.models(plan_key(account))
    }

    /// A response asked for with `store: true` is kept by xAI for its account: the engine pins
    /// it, and a later `previous_response_id` continues it natively (PROTOCOL H.3).
    fn stores_http_response(&self, body: &[u8], view: &RequestBody) -> bool {
        view.boolean(body, "store").ok().flatten() == Some(true)
    }

    /// Any `previous_response_id` this provider is routed is continued from the transcript it
    /// keeps, when it keeps them.
    fn replays_continuations(&self) -> bool {
        self.transport.transcripts().is_some()
    }

    async fn execute(&self, call: UpstreamCall<'_>) -> Result<UpstreamReply, AttemptFailure> {
        let continuing = self.continuing(&call).await?;
        let (_, credential) = self.credential_for(call.account)?;
        let upstream_model = self.models.upstream(call.upstream_model);
        if call.operation == Operation::ResponsesCompact {
            return self.transport.compact(&call, &credential, &upstream_model).await;
        }
        self.transport.send(&call, &credential, &upstream_model, continuing).await
    }

    async fn recover_credential(&self, account: AccountId) -> Result<(), AttemptFailure> {
        self.credentials.recover(account).await
    }
}

//! `OpenAiProvider`: the provider port over the Codex backend.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use gateway_core::domain::{AccountId, CredentialFacts, CredentialRevision, CredentialState, ProviderKind, SendState};
use gateway_core::ports::{CredentialStore, CredentialWrite, StorageErrorKind};
use gateway_core::provider::{AttemptFailure, FailureClass, ModelInfo, Provider, UpstreamCall, UpstreamReply};
use gateway_core::snapshot::AccountEntry;
use time::OffsetDateTime;

use crate::catalog;
use crate::credential::OpenAiCredential;
use crate::refresh::{RefreshError, Refresher};
use crate::settings::OpenAiSettings;
use crate::socket_route::SocketRoute;
use crate::transport::Transport;
use crate::upstream_url::{UrlRefused, checked_base_url};
use crate::websocket::{PoolLimits, PrewarmMemory, SocketPool, WsEndpoint};

/// How long before expiry the next refresh is scheduled after a successful one.
const REFRESH_MARGIN_SECONDS: i64 = 300;

struct Cached {
    revision: CredentialRevision,
    credential: Arc<OpenAiCredential>,
}

pub struct OpenAiProvider {
    transport: Transport,
    sockets: SocketRoute,
    refresher: Refresher,
    credentials: Arc<dyn CredentialStore>,
    /// The newest credential known per account: the snapshot's, or a newer one this process
    /// obtained by refresh before the next snapshot reload.
    cache: Mutex<HashMap<AccountId, Cached>>,
    /// One refresh at a time per account in this process.
    refresh_locks: Mutex<HashMap<AccountId, Arc<tokio::sync::Mutex<()>>>>,
}

impl OpenAiProvider {
    pub fn new(settings: &OpenAiSettings, credentials: Arc<dyn CredentialStore>) -> Result<Self, UrlRefused> {
        let backend = checked_base_url(&settings.backend_url, settings.allow_http_loopback)?;
        let auth = checked_base_url(&settings.auth_url, settings.allow_http_loopback)?;
        let client = reqwest::Client::builder()
            .pool_idle_timeout(std::time::Duration::from_secs(90))
            .tcp_nodelay(true)
            .build()
            .map_err(|_| UrlRefused { url: backend.clone(), reason: "the HTTP client could not be built" })?;
        let transport = Transport::new(settings, &backend, client.clone())
            .map_err(|_| UrlRefused { url: backend.clone(), reason: "invalid request profile header values" })?;
        let sockets = SocketRoute {
            pool: SocketPool::new(PoolLimits::default()),
            prewarms: PrewarmMemory::default(),
            endpoint: WsEndpoint {
                url: WsEndpoint::for_backend(&backend),
                originator: settings.originator.clone(),
                version: settings.client_version.clone(),
                user_agent: settings.user_agent(),
                connect_timeout: std::time::Duration::from_secs(15),
            },
            first_frame_timeout: settings.header_timeout,
            idle_timeout: settings.stream_idle_timeout,
        };
        Ok(Self {
            transport,
            sockets,
            refresher: Refresher::new(client, &auth, &settings.client_id, settings.refresh_timeout),
            credentials,
            cache: Mutex::new(HashMap::new()),
            refresh_locks: Mutex::new(HashMap::new()),
        })
    }

    pub(crate) fn refresher(&self) -> &Refresher {
        &self.refresher
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, HashMap<AccountId, Cached>> {
        self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The credential to use for `account`: the cached one when it is at least as new as the
    /// snapshot's, else the snapshot's (decoded once and cached).
    fn credential_for(
        &self,
        account: &AccountEntry,
    ) -> Result<(CredentialRevision, Arc<OpenAiCredential>), AttemptFailure> {
        let snapshot_revision = account.record.credential_revision;
        if let Some(cached) = self.lock_cache().get(&account.id())
            && cached.revision >= snapshot_revision
        {
            return Ok((cached.revision, cached.credential.clone()));
        }
        let document = account.credential().ok_or_else(|| unusable("credential_unreadable"))?;
        let credential = Arc::new(OpenAiCredential::decode(document).map_err(|_| unusable("credential_malformed"))?);
        self.lock_cache().insert(account.id(), Cached { revision: snapshot_revision, credential: credential.clone() });
        Ok((snapshot_revision, credential))
    }

    fn remember(&self, account: AccountId, revision: CredentialRevision, credential: Arc<OpenAiCredential>) {
        let mut cache = self.lock_cache();
        match cache.get(&account) {
            Some(cached) if cached.revision > revision => {}
            _ => {
                cache.insert(account, Cached { revision, credential });
            }
        }
    }

    fn refresh_lock(&self, account: AccountId) -> Arc<tokio::sync::Mutex<()>> {
        self.refresh_locks.lock().unwrap_or_else(std::sync::PoisonError::into_inner).entry(account).or_default().clone()
    }
}

fn unusable(reason: &str) -> AttemptFailure {
    AttemptFailure::new(FailureClass::AccountUnusable { reason: reason.to_owned() }, SendState::NotSent, reason)
}

fn storage_failure(message: &str) -> AttemptFailure {
    AttemptFailure::new(FailureClass::UpstreamUnavailable, SendState::NotSent, message)
}

#[async_trait]
impl Provider for OpenAiProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    fn supports_model(&self, _account: &AccountEntry, model: &str) -> bool {
        catalog::fallback_supports(model)
    }

    fn models(&self, _account: &AccountEntry) -> Vec<ModelInfo> {
        catalog::fallback_models()
    }

    async fn execute(&self, call: UpstreamCall<'_>) -> Result<UpstreamReply, AttemptFailure> {
        let (_, credential) = self.credential_for(call.account)?;
        match call.route {
            gateway_core::provider::UpstreamRoute::Http => self.transport.send(&call, &credential).await,
            _ => self.sockets.execute(&call, &credential, &self.transport).await,
        }
    }

    async fn recover_credential(&self, account: AccountId) -> Result<(), AttemptFailure> {
        let lock = self.refresh_lock(account);
        let _held = lock.lock().await;
        let known = self.lock_cache().get(&account).map(|c| c.revision);
        let stored =
            self.credentials.read_credential(account).await.map_err(|_| storage_failure("credential read failed"))?;
        let document = match &stored.slot {
            gateway_core::domain::CredentialSlot::Available(doc) => doc,
            gateway_core::domain::CredentialSlot::Unreadable { .. } => return Err(unusable("credential_unreadable")),
        };
        let current = Arc::new(OpenAiCredential::decode(document).map_err(|_| unusable("credential_malformed"))?);
        if known.is_some_and(|known| stored.revision > known) {
            // Another process (or replica) already refreshed: use its credential.
            self.remember(account, stored.revision, current);
            return Ok(());
        }
        let now = OffsetDateTime::now_utc();
        match self.refresher.refresh(&current, now.unix_timestamp()).await {
            Ok(next) => {
                let expires = next.expires_at.and_then(|e| OffsetDateTime::from_unix_timestamp(e).ok());
                let next_refresh = expires.map(|e| e - time::Duration::seconds(REFRESH_MARGIN_SECONDS));
                let write = CredentialWrite {
                    document: next.encode(),
                    facts: CredentialFacts::active(expires, next_refresh),
                    profile: None,
                };
                // Persist before use: a rotated refresh token that is not stored is lost.
                match self.credentials.write_credential(account, stored.revision, write).await {
                    Ok(revision) => {
                        self.remember(account, revision, Arc::new(next));
                        Ok(())
                    }
                    Err(err) if err.kind() == StorageErrorKind::RevisionMismatch => {
                        let latest = self
                            .credentials
                            .read_credential(account)
                            .await
                            .map_err(|_| storage_failure("credential read failed"))?;
                        if let gateway_core::domain::CredentialSlot::Available(doc) = &latest.slot
                            && let Ok(credential) = OpenAiCredential::decode(doc)
                        {
                            self.remember(account, latest.revision, Arc::new(credential));
                        }
                        Ok(())
                    }
                    Err(_) => Err(storage_failure("the refreshed credential could not be stored")),
                }
            }
            Err(RefreshError::Permanent { code }) => {
                let mut facts = CredentialFacts::active(None, None);
                facts.state = CredentialState::Invalid;
                facts.reason = Some(code.clone());
                let _ = self.credentials.write_credential_facts(account, stored.revision, facts).await;
                Err(unusable(&code))
            }
            Err(RefreshError::NoRefreshToken) => Err(unusable("no_refresh_token")),
            Err(RefreshError::Transient(message)) => {
                Err(AttemptFailure::new(FailureClass::UpstreamUnavailable, SendState::NotSent, message))
            }
        }
    }
}

//! Interactive logins of upstream accounts — new accounts and re-authorisation — for the admin
//! API and the command line.
//!
//! Browser login: [`OAuthLogins::start_login`] returns the authorize address and stores a pending
//! flow (keyed by the OAuth `state`, owned by the caller, 10 minutes for OpenAI) holding the
//! provider's secret payload; the admin opens the address, consents, and pastes the address the
//! browser lands on into [`OAuthLogins::complete_login`], which claims the flow atomically,
//! exchanges the code, stores the account and deletes the flow. Device login:
//! [`OAuthLogins::start_device_login`] returns a user code; [`OAuthLogins::poll_device_login`]
//! is called until it completes.
//!
//! Refused: a callback whose state names no live flow (mismatch, expired, or replayed after
//! completion), a flow of another owner (left untouched), a flow being completed concurrently,
//! and — for a re-authorisation — tokens of another upstream account. A re-authorisation binds
//! only the target account id; completion re-reads the account and replaces the credential by a
//! compare-and-swap on its current revision, keeping profile, scheduling facts and groups.
//!
//! Every upstream call of a flow goes through the login's egress proxy ([`login_proxy`]).

pub mod account_checks;
pub mod callback;
pub mod error;
pub mod flow_envelope;
pub mod flow_seal;
pub mod login_proxy;
pub mod store_login;

use std::sync::Arc;
use std::time::Duration;

use gateway_core::coordination::oauth_pending::pending_ttl;
use gateway_core::coordination::{ClaimId, FlowClaim, FlowCreate, OAuthFlowKey, OAuthPendingFlows};
use gateway_core::domain::{AccountId, CredentialSlot, ProviderKind};
use gateway_core::oauth_login::{DevicePoll, OAuthFailure, OAuthLogin};
use rand::RngCore;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::audit::AuditActor;
use crate::ports::{AccountDirectory, UnitOfWork};

pub use callback::{Callback, CallbackRejected, parse_callback};
pub use error::OAuthError;
pub use flow_envelope::{FlowEnvelope, FlowKind};
pub use flow_seal::FlowSeal;
pub use login_proxy::{LoginEgress, LoginProxy};
pub use store_login::LoginCompleted;

/// How long one completion attempt owns a flow.
const CLAIM_TTL: Duration = Duration::from_secs(60);

/// Who started a flow: the admin user (or `cli`). Only the same owner may complete it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthOwner(pub String);

impl OAuthOwner {
    /// The stored fingerprint (the owner itself never reaches coordination storage).
    pub fn fingerprint(&self) -> String {
        let digest = Sha256::digest(format!("switchboard.oauth.owner.v1\0{}", self.0).as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A started browser login.
#[derive(Debug, Clone)]
pub struct LoginStarted {
    pub provider: ProviderKind,
    /// The OAuth state; also the flow's id.
    pub flow_id: String,
    pub authorize_url: String,
    /// The browser lands on this address after consent (it need not be reachable: its address
    /// is what the admin pastes back).
    pub redirect_uri: String,
    pub expires_at: OffsetDateTime,
}

/// A started device login.
#[derive(Debug, Clone)]
pub struct DeviceLoginStarted {
    pub provider: ProviderKind,
    pub flow_id: String,
    pub user_code: String,
    pub verification_url: String,
    pub interval: Duration,
    pub expires_at: OffsetDateTime,
}

/// One device poll.
#[derive(Debug, Clone)]
pub enum DeviceLoginPoll {
    /// Not approved yet: poll again after `interval`.
    Pending {
        interval: Duration,
    },
    Completed(LoginCompleted),
}

/// The login use cases with the ports they need.
pub struct OAuthLogins {
    logins: Vec<Arc<dyn OAuthLogin>>,
    flows: Arc<dyn OAuthPendingFlows>,
    uow: Arc<dyn UnitOfWork>,
    directory: Arc<dyn AccountDirectory>,
    /// Groups, the SSRF guard and the default proxy; without them a login names no proxy and a
    /// re-authorisation uses only its account's own.
    egress: Option<LoginEgress>,
}

/// The storage key of a flow and the seal of its record, both from its binding (the OAuth
/// state, or `device:<flow id>`).
fn flow_key(provider: ProviderKind, kind: FlowKind, flow_id: &str) -> (OAuthFlowKey, FlowSeal) {
    let binding = match kind {
        FlowKind::Browser => flow_id.to_owned(),
        FlowKind::Device => format!("device:{flow_id}"),
    };
    let key = OAuthFlowKey::derive(provider, binding.as_bytes());
    let seal = FlowSeal::derive(provider, binding.as_bytes(), &key);
    (key, seal)
}

fn expires_at(ttl: Duration) -> OffsetDateTime {
    OffsetDateTime::now_utc() + time::Duration::try_from(ttl).unwrap_or(time::Duration::ZERO)
}

impl OAuthLogins {
    pub fn new(
        logins: Vec<Arc<dyn OAuthLogin>>,
        flows: Arc<dyn OAuthPendingFlows>,
        uow: Arc<dyn UnitOfWork>,
        directory: Arc<dyn AccountDirectory>,
    ) -> Self {
        Self { logins, flows, uow, directory, egress: None }
    }

    /// These logins choosing their egress proxy with `egress`.
    pub fn with_egress(mut self, egress: LoginEgress) -> Self {
        self.egress = Some(egress);
        self
    }

    async fn flow_proxy(
        &self,
        target: Option<AccountId>,
        choice: &LoginProxy,
    ) -> Result<Option<login_proxy::FlowProxy>, OAuthError> {
        login_proxy::choose(self.egress.as_ref(), self.directory.as_ref(), target, choice).await
    }

    fn login(&self, provider: ProviderKind) -> Result<&Arc<dyn OAuthLogin>, OAuthError> {
        self.logins
            .iter()
            .find(|l| l.provider() == provider)
            .ok_or_else(|| OAuthError::UnsupportedProvider(provider.as_str().to_owned()))
    }

    /// The re-authorisation target must exist and belong to `provider`.
    async fn check_target(&self, provider: ProviderKind, target: Option<AccountId>) -> Result<(), OAuthError> {
        let Some(id) = target else { return Ok(()) };
        let account = self.directory.get_account(id).await.map_err(|_| OAuthError::AccountNotFound(id.0))?;
        if account.provider != provider {
            return Err(OAuthError::WrongProvider(id.0));
        }
        Ok(())
    }

    /// Starts a browser login (`target`: re-authorise that account) through the default route.
    pub async fn start_login(
        &self,
        provider: ProviderKind,
        target: Option<AccountId>,
        owner: &OAuthOwner,
    ) -> Result<LoginStarted, OAuthError> {
        self.start_login_via(provider, target, &LoginProxy::Default, owner).await
    }

    /// Starts a browser login whose calls go through the proxy `choice` resolves to.
    pub async fn start_login_via(
        &self,
        provider: ProviderKind,
        target: Option<AccountId>,
        choice: &LoginProxy,
        owner: &OAuthOwner,
    ) -> Result<LoginStarted, OAuthError> {
        let login = self.login(provider)?;
        self.check_target(provider, target).await?;
        let proxy = self.flow_proxy(target, choice).await?;
        let start = login.begin_authorization()?;
        let envelope = FlowEnvelope { kind: FlowKind::Browser, target, payload: start.payload, proxy };
        let ttl = pending_ttl(provider);
        let (key, seal) = flow_key(provider, FlowKind::Browser, &start.state);
        match self.flows.create_flow(&key, &owner.fingerprint(), &seal.seal(&envelope.encode()), ttl).await? {
            FlowCreate::Created { .. } => {}
            // 32 random bytes do not collide; refuse rather than share a flow.
            FlowCreate::Exists => return Err(OAuthError::InProgress),
        }
        Ok(LoginStarted {
            provider,
            flow_id: start.state,
            authorize_url: start.authorize_url,
            redirect_uri: start.redirect_uri,
            expires_at: expires_at(ttl),
        })
    }

    /// Completes a browser login with the pasted callback address (or its query).
    pub async fn complete_login(
        &self,
        provider: ProviderKind,
        pasted_callback: &str,
        owner: &OAuthOwner,
        actor: AuditActor,
    ) -> Result<LoginCompleted, OAuthError> {
        let login = self.login(provider)?.clone();
        let callback = parse_callback(pasted_callback)?;
        let state = callback.state.clone().ok_or(OAuthError::Callback(CallbackRejected::NoState))?;
        let (key, seal) = flow_key(provider, FlowKind::Browser, &state);
        let claim = ClaimId::random();
        let envelope = self.claim(&key, &seal, owner, &claim).await?;
        if envelope.kind != FlowKind::Browser {
            self.release(&key, &claim).await;
            return Err(OAuthError::WrongFlowKind);
        }
        if let Some(error) = callback.error {
            // A refused consent ends the flow.
            self.finish(&key, &claim).await;
            let description = callback.error_description.unwrap_or_default();
            return Err(OAuthFailure::Denied(format!("{error} {description}").trim().to_owned()).into());
        }
        let code = callback.code.unwrap_or_default();
        let result = async {
            let existing = self.existing_document(envelope.target).await?;
            let egress = envelope.proxy.as_ref().map(|p| &p.proxy);
            let credential = login.complete_authorization(&envelope.payload, &code, existing.as_ref(), egress).await?;
            let stored = store_login::StoredLogin { provider, target: envelope.target, kind: FlowKind::Browser };
            store_login::store_login(
                self.uow.as_ref(),
                self.directory.as_ref(),
                stored,
                envelope.proxy.as_ref(),
                credential,
                actor,
            )
            .await
        }
        .await;
        self.settle(&key, &claim, result.as_ref().err()).await;
        result
    }

    /// Starts a device login (`target`: re-authorise that account) through the default route.
    pub async fn start_device_login(
        &self,
        provider: ProviderKind,
        target: Option<AccountId>,
        owner: &OAuthOwner,
    ) -> Result<DeviceLoginStarted, OAuthError> {
        self.start_device_login_via(provider, target, &LoginProxy::Default, owner).await
    }

    /// Starts a device login whose calls go through the proxy `choice` resolves to.
    pub async fn start_device_login_via(
        &self,
        provider: ProviderKind,
        target: Option<AccountId>,
        choice: &LoginProxy,
        owner: &OAuthOwner,
    ) -> Result<DeviceLoginStarted, OAuthError> {
        let login = self.login(provider)?;
        self.check_target(provider, target).await?;
        let proxy = self.flow_proxy(target, choice).await?;
        let start = login.begin_device(proxy.as_ref().map(|p| &p.proxy)).await?;
        let flow_id = random_id();
        let envelope = FlowEnvelope { kind: FlowKind::Device, target, payload: start.payload, proxy };
        let ttl = start.expires_in;
        let (key, seal) = flow_key(provider, FlowKind::Device, &flow_id);
        match self.flows.create_flow(&key, &owner.fingerprint(), &seal.seal(&envelope.encode()), ttl).await? {
            FlowCreate::Created { .. } => {}
            FlowCreate::Exists => return Err(OAuthError::InProgress),
        }
        Ok(DeviceLoginStarted {
            provider,
            flow_id,
            user_code: start.user_code,
            verification_url: start.verification_url,
            interval: start.interval,
            expires_at: expires_at(ttl),
        })
    }

    /// Polls a device login once; stores the account when it was approved.
    pub async fn poll_device_login(
        &self,
        provider: ProviderKind,
        flow_id: &str,
        owner: &OAuthOwner,
        actor: AuditActor,
    ) -> Result<DeviceLoginPoll, OAuthError> {
        const PENDING: DeviceLoginPoll = DeviceLoginPoll::Pending { interval: Duration::from_secs(5) };
        let login = self.login(provider)?.clone();
        let (key, seal) = flow_key(provider, FlowKind::Device, flow_id);
        let claim = ClaimId::random();
        let envelope = match self.claim(&key, &seal, owner, &claim).await {
            // Another poll of the same flow is running: this one is simply still pending.
            Err(OAuthError::InProgress) => return Ok(PENDING),
            other => other?,
        };
        if envelope.kind != FlowKind::Device {
            self.release(&key, &claim).await;
            return Err(OAuthError::WrongFlowKind);
        }
        let result = async {
            let existing = self.existing_document(envelope.target).await?;
            let egress = envelope.proxy.as_ref().map(|p| &p.proxy);
            match login.poll_device(&envelope.payload, existing.as_ref(), egress).await? {
                DevicePoll::Pending => Ok(None),
                DevicePoll::Approved(credential) => {
                    let stored = store_login::StoredLogin { provider, target: envelope.target, kind: FlowKind::Device };
                    let (uow, directory) = (self.uow.as_ref(), self.directory.as_ref());
                    store_login::store_login(uow, directory, stored, envelope.proxy.as_ref(), *credential, actor)
                        .await
                        .map(Some)
                }
            }
        }
        .await;
        match result {
            Ok(None) => {
                self.release(&key, &claim).await;
                Ok(PENDING)
            }
            Ok(Some(done)) => {
                self.finish(&key, &claim).await;
                Ok(DeviceLoginPoll::Completed(done))
            }
            Err(err) => {
                self.settle(&key, &claim, Some(&err)).await;
                Err(err)
            }
        }
    }

    async fn claim(
        &self,
        key: &OAuthFlowKey,
        seal: &FlowSeal,
        owner: &OAuthOwner,
        claim: &ClaimId,
    ) -> Result<FlowEnvelope, OAuthError> {
        match self.flows.claim_flow(key, &owner.fingerprint(), claim, CLAIM_TTL).await? {
            FlowClaim::Claimed { payload, .. } => match seal.open(&payload).and_then(|p| FlowEnvelope::decode(&p)) {
                Some(envelope) => Ok(envelope),
                None => {
                    self.finish(key, claim).await;
                    Err(OAuthFailure::CorruptFlow.into())
                }
            },
            FlowClaim::NotFound => Err(OAuthError::UnknownFlow),
            FlowClaim::OwnerMismatch => Err(OAuthError::NotYourFlow),
            FlowClaim::AlreadyClaimed { .. } => Err(OAuthError::InProgress),
        }
    }

    async fn existing_document(
        &self,
        target: Option<AccountId>,
    ) -> Result<Option<gateway_core::domain::CredentialDocument>, OAuthError> {
        let Some(id) = target else { return Ok(None) };
        let account = self.directory.get_account(id).await.map_err(|_| OAuthError::AccountNotFound(id.0))?;
        Ok(match account.credential {
            CredentialSlot::Available(document) => Some(document),
            CredentialSlot::Unreadable { .. } => None,
        })
    }

    /// After a completion attempt: success or a final refusal deletes the flow; anything else
    /// gives the claim back so the admin can retry within the flow's lifetime.
    async fn settle(&self, key: &OAuthFlowKey, claim: &ClaimId, error: Option<&OAuthError>) {
        let terminal = match error {
            None => true,
            Some(OAuthError::Upstream(OAuthFailure::Denied(_) | OAuthFailure::Expired | OAuthFailure::CorruptFlow)) => {
                true
            }
            Some(OAuthError::WrongAccount | OAuthError::AccountNotFound(_)) => true,
            Some(_) => false,
        };
        if terminal { self.finish(key, claim).await } else { self.release(key, claim).await }
    }

    async fn finish(&self, key: &OAuthFlowKey, claim: &ClaimId) {
        if let Err(err) = self.flows.finish_flow(key, claim).await {
            tracing::warn!(flow = ?key, error = %err, "pending login not deleted; it expires");
        }
    }

    async fn release(&self, key: &OAuthFlowKey, claim: &ClaimId) {
        if let Err(err) = self.flows.release_claim(key, claim).await {
            tracing::warn!(flow = ?key, error = %err, "pending login claim not released; it expires");
        }
    }
}

/// A device flow id: 16 random bytes, hex.
fn random_id() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

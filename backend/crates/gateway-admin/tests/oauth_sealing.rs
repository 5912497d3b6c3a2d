//! Pending logins are sealed by the use case, so every adapter — here the in-process one —
//! stores only ciphertext: the raw record carries no verifier and no device code, a record
//! moved under another flow's key does not open, and the owner still completes the flow.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gateway_admin::audit::AuditActor;
use gateway_admin::oauth::{FlowSeal, LoginEgress, LoginProxy, OAuthError, OAuthLogins, OAuthOwner};
use gateway_admin::ports::{
    AccountDirectory, AdminTransaction, GroupDirectory, HostResolver, ResolveError, UnitOfWork,
};
use gateway_admin::url_guard::{UrlGuard, UrlPolicy};
use gateway_core::coordination::{ClaimId, FlowClaim, OAuthFlowKey, OAuthPendingFlows};
use gateway_core::credential_import::ImportedCredential;
use gateway_core::domain::{
    AccountGroup, AccountId, AccountRecord, CredentialDocument, EgressProxy, GroupId, ProviderKind,
};
use gateway_core::oauth_login::{AuthorizationStart, DevicePoll, DeviceStart, FlowSecret, OAuthFailure, OAuthLogin};
use gateway_core::ports::StorageError;
use gateway_store::memory::MemoryCoordination;

const VERIFIER: &str = "pkce-verifier-sealed-6b2e";
const DEVICE_ID: &str = "device-auth-id-sealed-41fa";

/// A login whose payloads carry known secrets; completing hands back what it was given.
struct FakeLogin;

#[async_trait]
impl OAuthLogin for FakeLogin {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    fn begin_authorization(&self) -> Result<AuthorizationStart, OAuthFailure> {
        Ok(AuthorizationStart {
            authorize_url: "https://auth.example/oauth/authorize?state=s".to_owned(),
            state: "state-of-the-flow-0001".to_owned(),
            redirect_uri: "http://localhost:1455/auth/callback".to_owned(),
            payload: FlowSecret::new(format!("{{\"verifier\":\"{VERIFIER}\"}}")),
        })
    }

    async fn complete_authorization(
        &self,
        payload: &FlowSecret,
        _code: &str,
        _existing: Option<&CredentialDocument>,
        egress: Option<&EgressProxy>,
    ) -> Result<ImportedCredential, OAuthFailure> {
        // Reached only if the record opened: report what it held (and the proxy it was given).
        let opened = if payload.expose().contains(VERIFIER) { "opened" } else { "garbled" };
        Err(OAuthFailure::Rejected(match egress.and_then(EgressProxy::expose_url) {
            Some(url) => format!("{opened} via {url}"),
            None => opened.to_owned(),
        }))
    }

    async fn begin_device(&self, _egress: Option<&EgressProxy>) -> Result<DeviceStart, OAuthFailure> {
        Ok(DeviceStart {
            user_code: "USER-CODE".to_owned(),
            verification_url: "https://auth.example/codex/device".to_owned(),
            interval: Duration::from_secs(5),
            expires_in: Duration::from_secs(900),
            payload: FlowSecret::new(format!("{{\"device_auth_id\":\"{DEVICE_ID}\",\"user_code\":\"USER-CODE\"}}")),
        })
    }

    async fn poll_device(
        &self,
        _payload: &FlowSecret,
        _existing: Option<&CredentialDocument>,
        _egress: Option<&EgressProxy>,
    ) -> Result<DevicePoll, OAuthFailure> {
        Ok(DevicePoll::Pending)
    }
}

/// Storage the flows above never reach (no re-authorisation target, nothing completed).
struct NoStorage;

#[async_trait]
impl UnitOfWork for NoStorage {
    async fn begin(&self) -> Result<Box<dyn AdminTransaction>, StorageError> {
        Err(StorageError::Unavailable("not in this test".to_owned()))
    }
}

#[async_trait]
impl AccountDirectory for NoStorage {
    async fn list_accounts(&self) -> Result<Vec<AccountRecord>, StorageError> {
        Ok(Vec::new())
    }
    async fn get_account(&self, id: AccountId) -> Result<AccountRecord, StorageError> {
        Err(StorageError::NotFound { entity: "account", id: id.to_string() })
    }
    async fn account_groups(&self, _id: AccountId) -> Result<Vec<GroupId>, StorageError> {
        Ok(Vec::new())
    }
}

#[async_trait]
impl GroupDirectory for NoStorage {
    async fn list_groups(&self) -> Result<Vec<AccountGroup>, StorageError> {
        Ok(Vec::new())
    }
    async fn get_group(&self, id: GroupId) -> Result<AccountGroup, StorageError> {
        Err(StorageError::NotFound { entity: "group", id: id.to_string() })
    }
}

#[async_trait]
impl HostResolver for NoStorage {
    async fn resolve(&self, _host: &str, _port: u16) -> Result<Vec<std::net::IpAddr>, ResolveError> {
        Err(ResolveError("no names in this test".to_owned()))
    }
}

/// The record as the adapter holds it (claimed and released again).
async fn raw(flows: &MemoryCoordination, key: &OAuthFlowKey, owner: &OAuthOwner) -> Vec<u8> {
    let claim = ClaimId::random();
    let claimed = flows.claim_flow(key, &owner.fingerprint(), &claim, Duration::from_secs(1)).await;
    let FlowClaim::Claimed { payload, .. } = claimed.expect("claim") else { panic!("the flow exists") };
    flows.release_claim(key, &claim).await.expect("release");
    payload
}

#[tokio::test]
async fn the_in_process_adapter_holds_only_sealed_pending_logins() {
    let flows = Arc::new(MemoryCoordination::new());
    let logins = OAuthLogins::new(vec![Arc::new(FakeLogin)], flows.clone(), Arc::new(NoStorage), Arc::new(NoStorage));
    let owner = OAuthOwner("admin:1".to_owned());
    let actor = AuditActor { user_id: None, name: "test".to_owned() };

    let started = logins.start_login(ProviderKind::Openai, None, &owner).await.expect("start");
    let browser = OAuthFlowKey::derive(ProviderKind::Openai, started.flow_id.as_bytes());
    let stored = raw(&flows, &browser, &owner).await;
    let text = String::from_utf8_lossy(&stored);
    assert!(!text.contains(VERIFIER) && !text.contains("verifier") && !text.contains("browser"), "{text}");
    let seal = FlowSeal::derive(ProviderKind::Openai, started.flow_id.as_bytes(), &browser);
    assert!(seal.open(&stored).is_some(), "the flow's own seal opens it");

    let device = logins.start_device_login(ProviderKind::Openai, None, &owner).await.expect("device start");
    let device_key = OAuthFlowKey::derive(ProviderKind::Openai, format!("device:{}", device.flow_id).as_bytes());
    let stored_device = raw(&flows, &device_key, &owner).await;
    let text = String::from_utf8_lossy(&stored_device);
    assert!(!text.contains(DEVICE_ID) && !text.contains("USER-CODE"), "{text}");
    assert!(seal.open(&stored_device).is_none(), "another flow's seal does not open it");

    // The owner completes: the record opened (the fake login saw the verifier).
    let callback = format!("http://localhost:1455/auth/callback?code=c&state={}", started.flow_id);
    match logins.complete_login(ProviderKind::Openai, &callback, &owner, actor).await {
        Err(OAuthError::Upstream(OAuthFailure::Rejected(what))) => assert_eq!(what, "opened"),
        other => panic!("expected the fake login's report, got {other:?}"),
    }
}

const PROXY_PASSWORD: &str = "proxy-pass-sealed-9c1d";

#[tokio::test]
async fn the_login_proxy_is_sealed_with_the_flow_and_handed_to_every_step() {
    let flows = Arc::new(MemoryCoordination::new());
    let default =
        EgressProxy::new("http://127.0.0.1:3128".to_owned(), format!("http://user:{PROXY_PASSWORD}@127.0.0.1:3128"));
    let egress = LoginEgress {
        groups: Arc::new(NoStorage),
        guard: Arc::new(UrlGuard::new(Arc::new(NoStorage), UrlPolicy { allow_private: true })),
        default_proxy: Some(default),
    };
    let logins = OAuthLogins::new(vec![Arc::new(FakeLogin)], flows.clone(), Arc::new(NoStorage), Arc::new(NoStorage))
        .with_egress(egress);
    let owner = OAuthOwner("admin:1".to_owned());
    let actor = AuditActor { user_id: None, name: "test".to_owned() };

    let started =
        logins.start_login_via(ProviderKind::Openai, None, &LoginProxy::Default, &owner).await.expect("start");
    let key = OAuthFlowKey::derive(ProviderKind::Openai, started.flow_id.as_bytes());
    let text = String::from_utf8_lossy(&raw(&flows, &key, &owner).await).into_owned();
    assert!(!text.contains(PROXY_PASSWORD) && !text.contains("3128"), "{text}");

    let callback = format!("http://localhost:1455/auth/callback?code=c&state={}", started.flow_id);
    match logins.complete_login(ProviderKind::Openai, &callback, &owner, actor).await {
        Err(OAuthError::Upstream(OAuthFailure::Rejected(what))) => {
            assert_eq!(what, format!("opened via http://user:{PROXY_PASSWORD}@127.0.0.1:3128"));
        }
        other => panic!("expected the fake login's report, got {other:?}"),
    }

    let named = LoginProxy::Group(GroupId(7));
    let refused = logins.start_login_via(ProviderKind::Openai, None, &named, &owner).await.expect_err("no group");
    assert!(matches!(refused, OAuthError::InvalidProxy { field: "groupId", .. }), "{refused:?}");
    let reauthorize = LoginProxy::Url("http://127.0.0.1:3128".to_owned());
    let refused = logins.start_login_via(ProviderKind::Openai, Some(AccountId(1)), &reauthorize, &owner).await;
    assert!(refused.is_err(), "a re-authorisation names no proxy (and this account does not exist)");
}

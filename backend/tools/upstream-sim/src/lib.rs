//! A fake upstream for tests, end-to-end runs and benchmarks: the ChatGPT Codex backend, OpenAI
//! OAuth and the xAI API (with its OIDC issuer), over real sockets. Never shipped in the product
//! image. `docs/upstream-sim.md` describes every endpoint, the control API and the `sim:`
//! directive syntax.
//!
//! ```ignore
//! let sim = upstream_sim::Simulator::start(SimConfig::default()).await?;
//! let tokens = sim.add_account(AccountSpec::openai("acct-1").with_plan("pro"))?;
//! // point the client under test at sim.codex_base_url() with tokens.access_token …
//! sim.exhaust_quota("acct-1")?;            // next request: 429 usage_limit_reached
//! assert_eq!(sim.requests().len(), 1);
//! sim.shutdown().await;
//! ```
//!
//! Invariants:
//! - Everything the HTTP control API (`/_sim/*`) can do, [`SimHandle`] can do, through the same
//!   [`state`] methods; handlers never keep their own state.
//! - A response stream for a scenario is serialized once ([`template`]) and only ids are patched
//!   per request, so the simulator is never the bottleneck of a benchmark.
//! - Nothing here talks to the network beyond the listening socket it binds.
//! - The faults of the edge in front of the backend ([`edge`]: Cloudflare's challenge, edge
//!   pages, a reset before the head) are answered before the backend's checks, and cost a
//!   request that uses none of them a few flag tests.

// Handlers return ready-made error answers (`Result<_, Response>`); boxing them would only add
// noise in a test server where the size of an error value does not matter.
#![allow(clippy::result_large_err)]

pub mod account;
mod app;
mod appcast;
mod codex;
pub mod compress;
pub mod config;
mod conn;
mod control;
pub mod edge;
pub mod ids;
mod oauth;
pub mod record;
pub mod request;
pub mod script;
pub mod server;
pub mod state;
mod stream;
pub mod template;
pub mod tls;
pub mod tokens;
pub mod turn;
mod xai;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use account::{AccountPatch, AccountSpec, AccountView, Provider, QuotaSpec};
pub use codex::websocket::BETA as CODEX_WEBSOCKET_BETA;
pub use config::{Settings, SettingsPatch, SimConfig};
pub use control::MintedTokens;
pub use record::RecordedRequest;
pub use script::{Directive, Page};
pub use server::ConnectionInfo;
pub use state::DeviceDecision;
pub use tls::{TestCa, TlsFault};
pub use tokens::{RefreshOutcome, TokenSet};
pub use xai::signing::{KEY_ID as XAI_KEY_ID, sign_id_token as sign_xai_id_token};

use state::SimState;

/// Starts simulators.
pub struct Simulator;

impl Simulator {
    /// Binds `config.listen` (plain HTTP) and `config.tls_listen` (TLS with a test CA generated
    /// now, HTTP/2 or HTTP/1.1 by ALPN), both default `127.0.0.1:0`, and serves the same routes
    /// on both until [`SimHandle::shutdown`].
    pub async fn start(config: SimConfig) -> anyhow::Result<SimHandle> {
        let config = config.normalized()?;
        let listener = TcpListener::bind(config.listen).await?;
        let addr = listener.local_addr()?;
        let tls_listener = TcpListener::bind(config.tls_listen).await?;
        let tls_addr = tls_listener.local_addr()?;
        let state = Arc::new(SimState::new(config, format!("http://{addr}"), format!("https://{tls_addr}"))?);
        let ca = Arc::new(TestCa::generate_with(state.tls_fault_switch())?);
        let router = app::router(state.clone());
        let connections = Arc::new(server::ConnectionLog::default());
        let tls = Some((tls_listener, ca.acceptor()));
        let task = tokio::spawn(server::serve(listener, tls, router, state.shutdown.clone(), connections.clone()));
        Ok(SimHandle { state, addr, tls_addr, ca, connections, task: Mutex::new(Some(task)) })
    }
}

/// A running simulator. Dropping it does not stop it; call [`SimHandle::shutdown`].
pub struct SimHandle {
    state: Arc<SimState>,
    addr: SocketAddr,
    tls_addr: SocketAddr,
    ca: Arc<TestCa>,
    connections: Arc<server::ConnectionLog>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl SimHandle {
    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        self.state.base_url.clone()
    }

    /// The TLS listener's address.
    pub fn tls_addr(&self) -> SocketAddr {
        self.tls_addr
    }

    /// `https://127.0.0.1:TLS_PORT`: the same routes over TLS (trust [`SimHandle::ca_pem`]).
    /// Answers that name the simulator's own URLs (discovery documents) still name
    /// [`SimHandle::base_url`].
    pub fn tls_base_url(&self) -> String {
        format!("https://{}", self.tls_addr)
    }

    /// [`SimHandle::tls_base_url`] + the Codex backend prefix (`…/backend-api`).
    pub fn tls_chatgpt_base_url(&self) -> String {
        format!("{}{}", self.tls_base_url(), self.state.config.codex_base_path)
    }

    /// [`SimHandle::tls_base_url`] + the OpenAI issuer prefix.
    pub fn tls_oauth_issuer_url(&self) -> String {
        format!("{}{}", self.tls_base_url(), self.state.config.oauth_base_path)
    }

    /// [`SimHandle::tls_base_url`] + the xAI API (`…/xai/v1`).
    pub fn tls_xai_base_url(&self) -> String {
        format!("{}/v1", self.tls_xai_issuer_url())
    }

    /// [`SimHandle::tls_base_url`] + the xAI issuer prefix. Discovery and ID tokens asked for
    /// over TLS name this issuer.
    pub fn tls_xai_issuer_url(&self) -> String {
        format!("{}{}", self.tls_base_url(), self.state.config.xai_prefix)
    }

    /// The test CA of this run (PEM), generated at start; nothing else trusts it. While the
    /// setting `tls_fault` is `untrusted` the TLS listener presents a certificate it did not sign.
    pub fn ca_pem(&self) -> &str {
        self.ca.pem()
    }

    /// The test CA (certificate and DER).
    pub fn ca(&self) -> &TestCa {
        &self.ca
    }

    /// Connections accepted so far on both listeners, oldest first, with the protocol each
    /// negotiated.
    pub fn connections(&self) -> Vec<ConnectionInfo> {
        self.connections.list()
    }

    /// ChatGPT backend base (`…/backend-api`): `wham/usage` lives here.
    pub fn chatgpt_base_url(&self) -> String {
        format!("{}{}", self.state.base_url, self.state.config.codex_base_path)
    }

    /// Codex base URL (`…/backend-api/codex`), what Codex calls `base_url`.
    pub fn codex_base_url(&self) -> String {
        format!("{}/codex", self.chatgpt_base_url())
    }

    /// OpenAI OAuth issuer (`/oauth/authorize`, `/oauth/token` below it).
    pub fn oauth_issuer_url(&self) -> String {
        self.state.openai_issuer()
    }

    /// xAI API base (`…/xai/v1`).
    pub fn xai_base_url(&self) -> String {
        format!("{}/v1", self.state.xai_issuer())
    }

    /// The simulated public xAI API (`api.x.ai`) base, `…/xai-api/v1` (`/responses/compact`).
    pub fn xai_api_url(&self) -> String {
        format!("{}{}/v1", self.state.base_url, xai::compact::XAI_API_PREFIX)
    }

    /// [`SimHandle::xai_api_url`] on the TLS listener.
    pub fn tls_xai_api_url(&self) -> String {
        format!("{}{}/v1", self.tls_base_url(), xai::compact::XAI_API_PREFIX)
    }

    /// xAI OIDC issuer (`…/xai`; discovery at `/.well-known/openid-configuration` below it).
    pub fn xai_issuer_url(&self) -> String {
        self.state.xai_issuer()
    }

    /// Sparkle appcast of the Codex desktop app.
    pub fn appcast_url(&self) -> String {
        format!("{}/appcast.xml", self.state.base_url)
    }

    /// npm-registry-shaped base (`{npm}/@xai-official%2Fgrok/latest`).
    pub fn npm_registry_url(&self) -> String {
        format!("{}/npm", self.state.base_url)
    }

    /// Adds an account; returns its first token set.
    pub fn add_account(&self, spec: AccountSpec) -> anyhow::Result<TokenSet> {
        Ok(self.state.add_account(spec)?)
    }

    /// Changes an account (plan, quota, ban, WebSocket refusal, refresh failure …).
    pub fn update_account(&self, id: &str, patch: AccountPatch) -> anyhow::Result<AccountView> {
        Ok(self.state.update_account(id, patch)?)
    }

    /// Sets both quota windows to 100 %: the next inference request gets the quota error.
    pub fn exhaust_quota(&self, id: &str) -> anyhow::Result<AccountView> {
        let patch = AccountPatch {
            primary_used_percent: Some(100.0),
            secondary_used_percent: Some(100.0),
            ..Default::default()
        };
        self.update_account(id, patch)
    }

    /// Bans (deactivates) an account.
    pub fn ban_account(&self, id: &str) -> anyhow::Result<AccountView> {
        self.update_account(id, AccountPatch { banned: Some(true), ..Default::default() })
    }

    pub fn remove_account(&self, id: &str) -> anyhow::Result<()> {
        Ok(self.state.remove_account(id)?)
    }

    pub fn account(&self, id: &str) -> Option<AccountView> {
        self.state.account(id).map(|a| a.view())
    }

    pub fn accounts(&self) -> Vec<AccountView> {
        self.state.accounts()
    }

    /// Mints a fresh token set (earlier tokens stay valid).
    pub fn mint_tokens(&self, id: &str) -> anyhow::Result<TokenSet> {
        Ok(self.state.mint_tokens(id, None)?)
    }

    /// Expires every access token of the account (next use: 401 / 403 bad-credentials).
    pub fn expire_access_tokens(&self, id: &str) -> anyhow::Result<usize> {
        Ok(self.state.expire_access_tokens(id)?)
    }

    /// Revokes every refresh token of the account (next refresh: `refresh_token_invalidated`).
    pub fn revoke_refresh_tokens(&self, id: &str) -> anyhow::Result<usize> {
        Ok(self.state.revoke_refresh_tokens(id)?)
    }

    /// Queues `directive` for the account's next `count` inference requests.
    pub fn push_script(&self, id: &str, directive: Directive, count: usize) -> anyhow::Result<()> {
        Ok(self.state.push_script(id, directive, count)?)
    }

    /// Like [`SimHandle::push_script`] with the `sim:` syntax (`"status=500 retry_after=1"`).
    pub fn script(&self, id: &str, directive: &str, count: usize) -> anyhow::Result<()> {
        let directive = Directive::parse(directive).map_err(anyhow::Error::msg)?;
        self.push_script(id, directive, count)
    }

    /// Drops queued request and refresh scripts of the account.
    pub fn clear_script(&self, id: &str) {
        self.state.clear_script(id);
    }

    /// Queues answers for the account's next refreshes.
    pub fn push_refresh_outcomes(&self, id: &str, outcomes: Vec<RefreshOutcome>) -> anyhow::Result<()> {
        Ok(self.state.push_refresh_outcomes(id, outcomes)?)
    }

    /// Resolves a pending device login (`user_code` None = the newest pending one; `account_id`
    /// None = the first account of the flow's provider).
    pub fn decide_device(
        &self,
        user_code: Option<&str>,
        account_id: Option<&str>,
        decision: DeviceDecision,
    ) -> anyhow::Result<()> {
        self.state.decide_device_flow(user_code, account_id, decision)?;
        Ok(())
    }

    /// Approves a pending device login for an account.
    pub fn approve_device(&self, user_code: Option<&str>, account_id: &str) -> anyhow::Result<()> {
        self.decide_device(user_code, Some(account_id), DeviceDecision::Approve)
    }

    /// Recorded requests, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests()
    }

    pub fn clear_requests(&self) {
        self.state.clear_requests();
    }

    /// The exact SSE bytes the Codex backend sent for `response_id` (fast-path responses only,
    /// the last 256).
    pub fn sent_bytes(&self, response_id: &str) -> Option<bytes::Bytes> {
        self.state.sent_bytes(response_id)
    }

    pub fn settings(&self) -> Settings {
        self.state.settings()
    }

    pub fn update_settings(&self, patch: SettingsPatch) -> Settings {
        self.state.update_settings(patch)
    }

    /// Stops accepting, aborts open connections and WebSockets, and waits for the server task.
    pub async fn shutdown(&self) {
        self.state.shutdown.cancel();
        let task = self.task.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(task) = task {
            let _ = task.await;
        }
    }
}

//! The simulator's shared state and every operation on it. The HTTP handlers, the control API
//! and the library handle all go through these methods, so they behave the same.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use crate::account::{Account, AccountPatch, AccountSpec, AccountView, Provider};
use crate::config::{Settings, SettingsPatch, SimConfig};
use crate::ids::now_unix;
use crate::record::Recorder;
use crate::script::Directive;
use crate::template::TemplateCache;
use crate::tls::TlsFaultSwitch;
use crate::tokens::{AccessRecord, RefreshOutcome, RefreshRecord, RefreshState, TokenSet, mint};
use crate::turn::TurnSpec;

mod login;
mod recording;
mod stored;

pub use login::{AuthCode, DeviceDecision, DeviceFlow, DeviceStatus};
pub use stored::StoredResponse;

/// Why a state operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateError {
    NotFound(String),
    Conflict(String),
    Invalid(String),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound(what) => write!(f, "not found: {what}"),
            Self::Conflict(what) => write!(f, "conflict: {what}"),
            Self::Invalid(what) => write!(f, "invalid: {what}"),
        }
    }
}

impl std::error::Error for StateError {}

/// Why a bearer token was not accepted.
#[derive(Debug, Clone)]
pub enum AuthFailure {
    Unknown,
    /// Known but expired or revoked; the account is still identified (for rate-limit headers).
    Expired(Box<Account>),
}

#[derive(Default)]
struct Inner {
    accounts: BTreeMap<String, Account>,
    access: HashMap<String, AccessRecord>,
    refresh: HashMap<String, RefreshRecord>,
    codes: HashMap<String, AuthCode>,
    devices: Vec<DeviceFlow>,
    scripts: HashMap<String, VecDeque<Directive>>,
    refresh_scripts: HashMap<String, VecDeque<RefreshOutcome>>,
    stored: HashMap<String, StoredResponse>,
    stored_order: VecDeque<String>,
}

/// Shared state of one simulator.
pub struct SimState {
    pub config: SimConfig,
    pub base_url: String,
    /// `https://127.0.0.1:TLS_PORT`: the TLS listener.
    pub tls_base_url: String,
    settings: RwLock<Settings>,
    inner: Mutex<Inner>,
    records: Mutex<Recorder>,
    /// The exact SSE bytes of the last fast-path Codex responses, by response id, so a test can
    /// compare what a client behind a proxy received with what the upstream sent.
    sent: Mutex<std::collections::VecDeque<(String, bytes::Bytes)>>,
    pub turns: TemplateCache<TurnSpec>,
    /// Cancelled by `SimHandle::shutdown`: stops the accept loop and open WebSockets.
    pub shutdown: tokio_util::sync::CancellationToken,
    pub chats: TemplateCache<crate::xai::chat::ChatSpec>,
    /// Installation id → the account that first used it (`codex::installation`).
    installations: Mutex<std::collections::HashMap<String, String>>,
    /// Whether a script that acts at the edge (or sets cookies) was ever queued: until then
    /// the edge phase does not look at the queues ([`SimState::pop_script_if`]).
    edge_scripts: AtomicBool,
    /// Which certificate the TLS listener presents (setting `tls_fault`).
    tls_fault: Arc<TlsFaultSwitch>,
}

impl SimState {
    pub fn new(config: SimConfig, base_url: String, tls_base_url: String) -> Result<Self, StateError> {
        let state = Self {
            tls_base_url,
            settings: RwLock::new(config.settings.clone()),
            base_url,
            inner: Mutex::new(Inner::default()),
            records: Mutex::new(Recorder::default()),
            sent: Mutex::new(std::collections::VecDeque::new()),
            turns: TemplateCache::new(1_024),
            shutdown: tokio_util::sync::CancellationToken::new(),
            chats: TemplateCache::new(256),
            installations: Mutex::new(std::collections::HashMap::new()),
            edge_scripts: AtomicBool::new(false),
            tls_fault: Arc::new(TlsFaultSwitch::new(config.settings.tls_fault)),
            config,
        };
        for spec in state.config.accounts.clone() {
            state.add_account(spec)?;
        }
        Ok(state)
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn settings(&self) -> Settings {
        self.settings.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// [`Settings::compress_answers`], read without copying the settings.
    pub fn compresses_answers(&self) -> bool {
        self.settings.read().unwrap_or_else(PoisonError::into_inner).compress_answers
    }

    pub fn update_settings(&self, patch: SettingsPatch) -> Settings {
        let mut settings = self.settings.write().unwrap_or_else(PoisonError::into_inner);
        settings.apply(patch);
        self.tls_fault.set(settings.tls_fault);
        settings.clone()
    }

    /// The switch the TLS listener's certificate resolver reads (setting `tls_fault`).
    pub fn tls_fault_switch(&self) -> Arc<TlsFaultSwitch> {
        self.tls_fault.clone()
    }

    /// `{base}{oauth_base_path}`.
    pub fn openai_issuer(&self) -> String {
        format!("{}{}", self.base_url, self.config.oauth_base_path)
    }

    /// `{base}{xai_prefix}`.
    pub fn xai_issuer(&self) -> String {
        format!("{}{}", self.base_url, self.config.xai_prefix)
    }

    /// The xAI issuer as seen by a request on the plain or the TLS listener.
    pub fn xai_issuer_via(&self, tls: bool) -> String {
        if tls { format!("{}{}", self.tls_base_url, self.config.xai_prefix) } else { self.xai_issuer() }
    }

    // ---- accounts -------------------------------------------------------------------------

    /// Adds an account and mints its first token set.
    pub fn add_account(&self, spec: AccountSpec) -> Result<TokenSet, StateError> {
        if spec.id.trim().is_empty() {
            return Err(StateError::Invalid("account id must not be empty".into()));
        }
        let id = spec.id.clone();
        {
            let mut inner = self.inner();
            if inner.accounts.contains_key(&id) {
                return Err(StateError::Conflict(format!("account {id} exists")));
            }
            inner.accounts.insert(id.clone(), Account::from_spec(spec));
        }
        self.mint_tokens(&id, None)
    }

    pub fn update_account(&self, id: &str, patch: AccountPatch) -> Result<AccountView, StateError> {
        let mut inner = self.inner();
        let account = inner.accounts.get_mut(id).ok_or_else(|| StateError::NotFound(format!("account {id}")))?;
        account.apply(patch);
        Ok(account.view())
    }

    pub fn remove_account(&self, id: &str) -> Result<(), StateError> {
        let mut inner = self.inner();
        inner.accounts.remove(id).ok_or_else(|| StateError::NotFound(format!("account {id}")))?;
        inner.access.retain(|_, record| record.account_id != id);
        inner.refresh.retain(|_, record| record.account_id != id);
        inner.scripts.remove(id);
        inner.refresh_scripts.remove(id);
        Ok(())
    }

    pub fn account(&self, id: &str) -> Option<Account> {
        let mut inner = self.inner();
        let account = inner.accounts.get_mut(id)?;
        account.roll(now_unix());
        Some(account.clone())
    }

    pub fn accounts(&self) -> Vec<AccountView> {
        let mut inner = self.inner();
        let now = now_unix();
        inner
            .accounts
            .values_mut()
            .map(|a| {
                a.roll(now);
                a.view()
            })
            .collect()
    }

    /// The account `/oauth/authorize` uses: `hint` (account id or e-mail), else the configured
    /// default, else the first account of `provider`.
    pub fn pick_account(&self, provider: Provider, hint: Option<&str>) -> Option<Account> {
        let inner = self.inner();
        let of_provider = |a: &&Account| a.provider == provider;
        let found = match hint {
            Some(hint) => inner.accounts.values().filter(of_provider).find(|a| a.id == hint || a.email == hint),
            None => self
                .config
                .default_account
                .as_deref()
                .and_then(|id| inner.accounts.get(id))
                .filter(|a| a.provider == provider)
                .or_else(|| inner.accounts.values().find(of_provider)),
        };
        found.cloned()
    }

    // ---- tokens ---------------------------------------------------------------------------

    /// Mints and registers a fresh token set for an account.
    pub fn mint_tokens(&self, id: &str, nonce: Option<&str>) -> Result<TokenSet, StateError> {
        self.mint_tokens_via(id, nonce, false)
    }

    /// [`SimState::mint_tokens`] for a request on the TLS listener when `tls` (the xAI ID
    /// token then names the TLS issuer).
    pub fn mint_tokens_via(&self, id: &str, nonce: Option<&str>, tls: bool) -> Result<TokenSet, StateError> {
        let mut inner = self.inner();
        let account = inner.accounts.get(id).ok_or_else(|| StateError::NotFound(format!("account {id}")))?;
        let (issuer, client_id) = match account.provider {
            Provider::Openai => (self.openai_issuer(), self.settings().openai_client_id),
            Provider::Xai => (self.xai_issuer_via(tls), self.settings().xai_client_id),
        };
        let set = mint(account, &issuer, &client_id, nonce);
        inner.access.insert(
            set.access_token.clone(),
            AccessRecord { account_id: id.to_owned(), expires_at: set.expires_at, revoked: false },
        );
        inner.refresh.insert(
            set.refresh_token.clone(),
            RefreshRecord { account_id: id.to_owned(), state: RefreshState::Active },
        );
        Ok(set)
    }

    /// Resolves a bearer access token to its account (windows rolled).
    pub fn authenticate(&self, access_token: &str, provider: Provider) -> Result<Account, AuthFailure> {
        let mut inner = self.inner();
        let record = inner.access.get(access_token).cloned().ok_or(AuthFailure::Unknown)?;
        let account = inner.accounts.get_mut(&record.account_id).ok_or(AuthFailure::Unknown)?;
        if account.provider != provider {
            return Err(AuthFailure::Unknown);
        }
        account.roll(now_unix());
        if record.revoked || record.expires_at <= now_unix() {
            return Err(AuthFailure::Expired(Box::new(account.clone())));
        }
        Ok(account.clone())
    }

    /// Makes every access token of the account expired.
    pub fn expire_access_tokens(&self, id: &str) -> Result<usize, StateError> {
        let mut inner = self.inner();
        if !inner.accounts.contains_key(id) {
            return Err(StateError::NotFound(format!("account {id}")));
        }
        let past = now_unix().saturating_sub(1);
        let mut count = 0;
        for record in inner.access.values_mut().filter(|r| r.account_id == id) {
            record.expires_at = record.expires_at.min(past);
            count += 1;
        }
        Ok(count)
    }

    /// Revokes every refresh token of the account (next use → `refresh_token_invalidated`).
    pub fn revoke_refresh_tokens(&self, id: &str) -> Result<usize, StateError> {
        let mut inner = self.inner();
        if !inner.accounts.contains_key(id) {
            return Err(StateError::NotFound(format!("account {id}")));
        }
        let mut count = 0;
        for record in inner.refresh.values_mut().filter(|r| r.account_id == id && r.state == RefreshState::Active) {
            record.state = RefreshState::Revoked;
            count += 1;
        }
        Ok(count)
    }

    /// Revokes one token (access or refresh). Unknown tokens are ignored (RFC 7009).
    pub fn revoke_token(&self, token: &str) {
        let mut inner = self.inner();
        if let Some(record) = inner.access.get_mut(token) {
            record.revoked = true;
        }
        if let Some(record) = inner.refresh.get_mut(token) {
            record.state = RefreshState::Revoked;
        }
    }

    /// The refresh token's account and state; a scripted outcome for that account if any
    /// (queued first, then the persistent one). Marks an active token as used.
    pub fn use_refresh_token(
        &self,
        refresh_token: &str,
        provider: Provider,
    ) -> Result<(String, RefreshState, Option<RefreshOutcome>, bool), StateError> {
        let mut inner = self.inner();
        let record =
            inner.refresh.get(refresh_token).cloned().ok_or_else(|| StateError::NotFound("refresh token".into()))?;
        let account = inner.accounts.get(&record.account_id).ok_or_else(|| StateError::NotFound("account".into()))?;
        if account.provider != provider {
            return Err(StateError::NotFound("refresh token".into()));
        }
        let banned = account.banned;
        let persistent = account.refresh_failure.clone();
        let scripted = inner.refresh_scripts.get_mut(&record.account_id).and_then(VecDeque::pop_front).or(persistent);
        let consumes = match &scripted {
            None | Some(RefreshOutcome::Delay { .. }) => !banned,
            Some(_) => false,
        };
        if consumes
            && record.state == RefreshState::Active
            && let Some(stored) = inner.refresh.get_mut(refresh_token)
        {
            stored.state = RefreshState::Used;
        }
        Ok((record.account_id, record.state, scripted, banned))
    }

    pub fn push_refresh_outcomes(&self, id: &str, outcomes: Vec<RefreshOutcome>) -> Result<(), StateError> {
        let mut inner = self.inner();
        if !inner.accounts.contains_key(id) {
            return Err(StateError::NotFound(format!("account {id}")));
        }
        inner.refresh_scripts.entry(id.to_owned()).or_default().extend(outcomes);
        Ok(())
    }

    // ---- per-request behaviour ------------------------------------------------------------

    /// Queues `directive` for the next `count` inference requests of the account.
    pub fn push_script(&self, id: &str, directive: Directive, count: usize) -> Result<(), StateError> {
        let mut inner = self.inner();
        if !inner.accounts.contains_key(id) {
            return Err(StateError::NotFound(format!("account {id}")));
        }
        directive.check().map_err(StateError::Invalid)?;
        if directive.acts_at_edge() || directive.set_cookie.is_some() {
            self.edge_scripts.store(true, Ordering::Relaxed);
        }
        let queue = inner.scripts.entry(id.to_owned()).or_default();
        queue.extend(std::iter::repeat_n(directive, count));
        Ok(())
    }

    pub fn clear_script(&self, id: &str) {
        self.inner().scripts.remove(id);
        self.inner().refresh_scripts.remove(id);
    }

    pub fn pop_script(&self, id: &str) -> Option<Directive> {
        self.inner().scripts.get_mut(id).and_then(VecDeque::pop_front)
    }

    /// The next queued directive for a `response.create` on an open socket: an entry with
    /// `challenge` or `page` is left for the next request the edge sees (an HTTP request or an
    /// upgrade), since the edge only sees a socket's handshake.
    pub fn pop_socket_script(&self, id: &str) -> Option<Directive> {
        if !self.edge_scripts.load(Ordering::Relaxed) {
            return self.pop_script(id);
        }
        let mut inner = self.inner();
        let queue = inner.scripts.get_mut(id)?;
        let for_the_edge = |d: &Directive| d.challenge.is_some() || d.page.is_some();
        if queue.front().is_some_and(for_the_edge) { None } else { queue.pop_front() }
    }

    /// Pops the account's next queued directive only if `wanted` holds for it (the edge phase
    /// takes the entries that act at the edge). Free until such a script was ever queued.
    pub fn pop_script_if(&self, id: &str, wanted: impl Fn(&Directive) -> bool) -> Option<Directive> {
        if !self.edge_scripts.load(Ordering::Relaxed) {
            return None;
        }
        let mut inner = self.inner();
        let queue = inner.scripts.get_mut(id)?;
        if queue.front().is_some_and(wanted) { queue.pop_front() } else { None }
    }

    /// Quota gate for one inference request: `Err(account)` when a window is exhausted;
    /// otherwise the request is counted and the updated account returned.
    pub fn admit(&self, id: &str) -> Result<Account, Box<Account>> {
        let mut inner = self.inner();
        let Some(account) = inner.accounts.get_mut(id) else {
            return Err(Box::new(Account::from_spec(AccountSpec::openai(id))));
        };
        account.roll(now_unix());
        if account.exhausted_window().is_some() {
            return Err(Box::new(account.clone()));
        }
        account.consume();
        Ok(account.clone())
    }

    /// Binds `installation` to `account` on first use; `Err(owner)` when another account
    /// already uses it.
    pub fn bind_installation(&self, installation: &str, account: &str) -> Result<(), String> {
        let mut bound = self.installations.lock().unwrap_or_else(PoisonError::into_inner);
        match bound.get(installation) {
            Some(owner) if owner != account => Err(owner.clone()),
            Some(_) => Ok(()),
            None => {
                bound.insert(installation.to_owned(), account.to_owned());
                Ok(())
            }
        }
    }
}

//! Simulated subscription accounts: identity, plan, quota windows and per-account switches.

use serde::{Deserialize, Serialize};

use crate::ids::now_unix;
use crate::tokens::RefreshOutcome;

/// Which upstream an account belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// ChatGPT / Codex account (OpenAI OAuth, `/backend-api/codex`).
    #[default]
    Openai,
    /// xAI Grok subscription account (xAI OIDC, `/xai/v1`).
    Xai,
}

/// An account as configured or created through the control API.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountSpec {
    /// `chatgpt_account_id` (OpenAI) or team id (xAI); unique across the simulator.
    pub id: String,
    #[serde(default)]
    pub provider: Provider,
    /// `free|go|plus|pro|team|business|enterprise|edu` (OpenAI, default `plus`) or an xAI tier
    /// (`free`, `supergrok`, …; default `supergrok`).
    #[serde(default)]
    pub plan: Option<String>,
    /// Default `<id>@sim.test`.
    #[serde(default)]
    pub email: Option<String>,
    /// `chatgpt_user_id` / OIDC `sub`; default `user-<id>`.
    #[serde(default)]
    pub user_id: Option<String>,
    #[serde(default)]
    pub quota: QuotaSpec,
    /// Banned/deactivated: inference and refresh answer with `account_deactivated`.
    #[serde(default)]
    pub banned: bool,
    /// Codex WebSocket upgrades are refused with 426 (client falls back to HTTP).
    #[serde(default)]
    pub ws_refused: bool,
    /// Cloudflare challenges every Codex inference request of the account (HTTP, compaction,
    /// WebSocket upgrade) with a 403 managed challenge until cleared.
    #[serde(default)]
    pub challenged: bool,
    /// Access-token lifetime; default 10 days (OpenAI) or 21,600 s (xAI).
    #[serde(default)]
    pub access_token_ttl_secs: Option<u64>,
    /// Every refresh of this account answers with this outcome until cleared.
    #[serde(default)]
    pub refresh_failure: Option<RefreshOutcome>,
}

impl AccountSpec {
    /// An OpenAI account with defaults.
    pub fn openai(id: impl Into<String>) -> Self {
        Self::new(id.into(), Provider::Openai)
    }

    /// An xAI account with defaults.
    pub fn xai(id: impl Into<String>) -> Self {
        Self::new(id.into(), Provider::Xai)
    }

    fn new(id: String, provider: Provider) -> Self {
        Self {
            id,
            provider,
            plan: None,
            email: None,
            user_id: None,
            quota: QuotaSpec::default(),
            banned: false,
            ws_refused: false,
            challenged: false,
            access_token_ttl_secs: None,
            refresh_failure: None,
        }
    }

    /// Sets the plan.
    pub fn with_plan(mut self, plan: impl Into<String>) -> Self {
        self.plan = Some(plan.into());
        self
    }
}

/// Quota windows. Used percentages are floats as in the `x-codex-*-used-percent` headers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct QuotaSpec {
    pub primary_used_percent: f64,
    pub primary_window_minutes: u64,
    /// Seconds until the primary window resets (default: the whole window).
    pub primary_reset_after_seconds: Option<u64>,
    pub secondary_used_percent: f64,
    pub secondary_window_minutes: u64,
    pub secondary_reset_after_seconds: Option<u64>,
    /// Added to the primary (and secondary) used percent by every successful response.
    pub usage_per_request_percent: f64,
    pub has_credits: bool,
    pub unlimited: bool,
    pub balance: String,
}

impl Default for QuotaSpec {
    fn default() -> Self {
        Self {
            primary_used_percent: 0.0,
            primary_window_minutes: 300,
            primary_reset_after_seconds: None,
            secondary_used_percent: 0.0,
            secondary_window_minutes: 10_080,
            secondary_reset_after_seconds: None,
            usage_per_request_percent: 0.0,
            has_credits: false,
            unlimited: false,
            balance: "0".to_owned(),
        }
    }
}

/// One quota window at a point in time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub used_percent: f64,
    pub window_minutes: u64,
    pub reset_at: u64,
}

impl Window {
    fn new(used_percent: f64, window_minutes: u64, reset_after: Option<u64>, now: u64) -> Self {
        Self { used_percent, window_minutes, reset_at: now + reset_after.unwrap_or(window_minutes * 60) }
    }

    /// Starts a fresh window once the reset time has passed.
    fn roll(&mut self, now: u64) {
        if now >= self.reset_at {
            self.used_percent = 0.0;
            let length = (self.window_minutes * 60).max(1);
            let missed = (now - self.reset_at) / length + 1;
            self.reset_at += missed * length;
        }
    }

    pub fn reset_after_seconds(&self, now: u64) -> u64 {
        self.reset_at.saturating_sub(now)
    }

    pub fn exhausted(&self) -> bool {
        self.used_percent >= 100.0
    }
}

/// The live state of an account.
#[derive(Debug, Clone)]
pub struct Account {
    pub id: String,
    pub provider: Provider,
    pub plan: String,
    pub email: String,
    pub user_id: String,
    pub primary: Window,
    pub secondary: Window,
    pub usage_per_request_percent: f64,
    pub has_credits: bool,
    pub unlimited: bool,
    pub balance: String,
    pub banned: bool,
    pub ws_refused: bool,
    /// Every Codex inference request gets Cloudflare's challenge (`edge::challenge`).
    pub challenged: bool,
    pub access_token_ttl_secs: u64,
    pub refresh_failure: Option<RefreshOutcome>,
    /// Successful responses served.
    pub requests_served: u64,
}

impl Account {
    pub fn from_spec(spec: AccountSpec) -> Self {
        let now = now_unix();
        let q = spec.quota;
        let (default_plan, default_ttl) = match spec.provider {
            Provider::Openai => ("plus", 10 * 86_400),
            Provider::Xai => ("supergrok", 21_600),
        };
        Self {
            email: spec.email.unwrap_or_else(|| format!("{}@sim.test", spec.id)),
            user_id: spec.user_id.unwrap_or_else(|| format!("user-{}", spec.id)),
            plan: spec.plan.unwrap_or_else(|| default_plan.to_owned()),
            provider: spec.provider,
            primary: Window::new(q.primary_used_percent, q.primary_window_minutes, q.primary_reset_after_seconds, now),
            secondary: Window::new(
                q.secondary_used_percent,
                q.secondary_window_minutes,
                q.secondary_reset_after_seconds,
                now,
            ),
            usage_per_request_percent: q.usage_per_request_percent,
            has_credits: q.has_credits,
            unlimited: q.unlimited,
            balance: q.balance,
            banned: spec.banned,
            ws_refused: spec.ws_refused,
            challenged: spec.challenged,
            access_token_ttl_secs: spec.access_token_ttl_secs.unwrap_or(default_ttl),
            refresh_failure: spec.refresh_failure,
            requests_served: 0,
            id: spec.id,
        }
    }

    /// Rolls windows whose reset time has passed.
    pub fn roll(&mut self, now: u64) {
        self.primary.roll(now);
        self.secondary.roll(now);
    }

    /// The exhausted window with the latest reset, if any (`primary` or `secondary`).
    pub fn exhausted_window(&self) -> Option<Window> {
        match (self.primary.exhausted(), self.secondary.exhausted()) {
            (true, true) => {
                Some(if self.secondary.reset_at > self.primary.reset_at { self.secondary } else { self.primary })
            }
            (true, false) => Some(self.primary),
            (false, true) => Some(self.secondary),
            (false, false) => None,
        }
    }

    /// Counts one successful response against the quota.
    pub fn consume(&mut self) {
        self.requests_served += 1;
        if self.usage_per_request_percent > 0.0 {
            self.primary.used_percent = (self.primary.used_percent + self.usage_per_request_percent).min(100.0);
            self.secondary.used_percent = (self.secondary.used_percent + self.usage_per_request_percent).min(100.0);
        }
    }

    pub fn apply(&mut self, patch: AccountPatch) {
        let now = now_unix();
        if let Some(plan) = patch.plan {
            self.plan = plan;
        }
        if let Some(email) = patch.email {
            self.email = email;
        }
        if let Some(value) = patch.primary_used_percent {
            self.primary.used_percent = value;
        }
        if let Some(value) = patch.secondary_used_percent {
            self.secondary.used_percent = value;
        }
        if let Some(value) = patch.primary_reset_after_seconds {
            self.primary.reset_at = now + value;
        }
        if let Some(value) = patch.secondary_reset_after_seconds {
            self.secondary.reset_at = now + value;
        }
        if let Some(value) = patch.usage_per_request_percent {
            self.usage_per_request_percent = value;
        }
        if let Some(value) = patch.has_credits {
            self.has_credits = value;
        }
        if let Some(value) = patch.balance {
            self.balance = value;
        }
        if let Some(value) = patch.banned {
            self.banned = value;
        }
        if let Some(value) = patch.ws_refused {
            self.ws_refused = value;
        }
        if let Some(value) = patch.challenged {
            self.challenged = value;
        }
        if let Some(value) = patch.access_token_ttl_secs {
            self.access_token_ttl_secs = value;
        }
        if let Some(value) = patch.refresh_failure {
            self.refresh_failure = value;
        }
    }

    pub fn view(&self) -> AccountView {
        let now = now_unix();
        AccountView {
            id: self.id.clone(),
            provider: self.provider,
            plan: self.plan.clone(),
            email: self.email.clone(),
            user_id: self.user_id.clone(),
            primary: self.primary.into(),
            primary_reset_after_seconds: self.primary.reset_after_seconds(now),
            secondary: self.secondary.into(),
            secondary_reset_after_seconds: self.secondary.reset_after_seconds(now),
            usage_per_request_percent: self.usage_per_request_percent,
            banned: self.banned,
            ws_refused: self.ws_refused,
            challenged: self.challenged,
            access_token_ttl_secs: self.access_token_ttl_secs,
            refresh_failure: self.refresh_failure.clone(),
            requests_served: self.requests_served,
        }
    }
}

/// A partial account update (`PATCH /_sim/accounts/{id}`, `SimHandle::update_account`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AccountPatch {
    pub plan: Option<String>,
    pub email: Option<String>,
    pub primary_used_percent: Option<f64>,
    pub secondary_used_percent: Option<f64>,
    pub primary_reset_after_seconds: Option<u64>,
    pub secondary_reset_after_seconds: Option<u64>,
    pub usage_per_request_percent: Option<f64>,
    pub has_credits: Option<bool>,
    pub balance: Option<String>,
    pub banned: Option<bool>,
    pub ws_refused: Option<bool>,
    /// `true`: Cloudflare challenges every Codex inference request of the account; `false` clears it.
    pub challenged: Option<bool>,
    pub access_token_ttl_secs: Option<u64>,
    /// `Some(None)` (JSON `null`) clears a persistent refresh failure.
    #[serde(deserialize_with = "double_option")]
    pub refresh_failure: Option<Option<RefreshOutcome>>,
}

fn double_option<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// What the control API shows for an account.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AccountView {
    pub id: String,
    pub provider: Provider,
    pub plan: String,
    pub email: String,
    pub user_id: String,
    pub primary: WindowData,
    pub primary_reset_after_seconds: u64,
    pub secondary: WindowData,
    pub secondary_reset_after_seconds: u64,
    pub usage_per_request_percent: f64,
    pub banned: bool,
    pub ws_refused: bool,
    #[serde(default)]
    pub challenged: bool,
    pub access_token_ttl_secs: u64,
    pub refresh_failure: Option<RefreshOutcome>,
    pub requests_served: u64,
}

/// Plain data of a window (serializable both ways).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WindowData {
    pub used_percent: f64,
    pub window_minutes: u64,
    pub reset_at: u64,
}

impl From<Window> for WindowData {
    fn from(w: Window) -> Self {
        Self { used_percent: w.used_percent, window_minutes: w.window_minutes, reset_at: w.reset_at }
    }
}

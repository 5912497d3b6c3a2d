//! The wire shape of one account (list rows and detail share it).

use gateway_admin::account_views::AccountView;
use gateway_core::domain::QuotaWindow;
use gateway_core::snapshot::AccountState;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::admin::dto::{AccountStateName, Provider};
use crate::admin::egress_proxy_routes::EgressProxyView;

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CredentialView {
    /// `active`, `unverified`, `invalid`, `expired` or `banned`.
    pub state: String,
    pub reason: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub access_token_expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub next_refresh_at: Option<OffsetDateTime>,
    pub refresh_failure_count: u32,
    pub revision: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuotaView {
    /// `allowed`, `exhausted` or `unknown` (only clear evidence sets the first two).
    pub state: String,
    /// The provider's quota windows (label, used percent, reset time…), as observed.
    #[schema(value_type = Vec<Object>)]
    pub windows: Vec<QuotaWindowView>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub observed_at: Option<OffsetDateTime>,
}

/// One quota window on the wire (the stored spelling: `used_percent`, `reset_at` in unix
/// seconds, …).
#[derive(Serialize)]
pub struct QuotaWindowView {
    pub name: String,
    pub used_percent: f64,
    pub window_minutes: Option<i64>,
    pub reset_at: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_type: Option<String>,
}

impl QuotaWindowView {
    pub fn list(windows: &[QuotaWindow]) -> Vec<Self> {
        windows
            .iter()
            .map(|w| Self {
                name: w.name.clone(),
                used_percent: w.used_percent,
                window_minutes: w.window_minutes,
                reset_at: w.reset_at,
                plan_type: w.plan_type.clone(),
            })
            .collect()
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TodayUsage {
    pub requests: u64,
    pub failed: u64,
    pub total_tokens: u64,
    pub cost_nano_usd: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountItem {
    pub id: i64,
    pub provider: Provider,
    pub external_account_id: String,
    pub email: Option<String>,
    pub plan_type: Option<String>,
    pub state: AccountStateName,
    /// Stable reason with `error`.
    pub state_reason: Option<String>,
    /// End of the cooldown with `rate_limited`.
    #[serde(with = "time::serde::rfc3339::option")]
    pub state_until: Option<OffsetDateTime>,
    pub enabled: bool,
    /// `null` inherits the runtime default.
    pub concurrency_cap: Option<u32>,
    pub effective_cap: u32,
    pub weight: u8,
    pub in_flight: u32,
    pub group_ids: Vec<i64>,
    /// The account's own egress proxy (a group's applies when `null`); the URL's user info is
    /// never shown.
    pub egress_proxy: Option<EgressProxyView>,
    pub credential: CredentialView,
    pub quota: QuotaView,
    /// Since midnight in the requested time zone.
    pub today: TodayUsage,
    #[serde(with = "time::serde::rfc3339::option")]
    pub last_used_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

pub fn state_parts(state: &AccountState) -> (AccountStateName, Option<String>, Option<OffsetDateTime>) {
    match state {
        AccountState::Normal => (AccountStateName::Normal, None, None),
        AccountState::QuotaExhausted => (AccountStateName::QuotaExhausted, None, None),
        // Why it cools down: the fault row that set the cooldown.
        AccountState::RateLimited { until, fault } => {
            (AccountStateName::RateLimited, fault.map(|f| f.as_str().to_owned()), Some(*until))
        }
        AccountState::Disabled => (AccountStateName::Disabled, None, None),
        AccountState::Error { reason } => (AccountStateName::Error, Some(reason.clone()), None),
    }
}

impl From<&AccountView> for AccountItem {
    fn from(v: &AccountView) -> Self {
        let r = &v.record;
        let (state, state_reason, state_until) = state_parts(&v.state);
        Self {
            id: r.id.0,
            provider: r.provider.into(),
            external_account_id: r.external_account_id.clone(),
            email: r.profile.email.clone(),
            plan_type: r.profile.plan_type.clone(),
            state,
            state_reason,
            state_until,
            enabled: r.scheduling.enabled,
            concurrency_cap: r.scheduling.concurrency_cap,
            effective_cap: v.effective_cap,
            weight: r.scheduling.weight.get(),
            in_flight: v.in_flight,
            group_ids: v.groups.iter().map(|g| g.0).collect(),
            egress_proxy: EgressProxyView::of(r.egress_proxy.as_ref()),
            credential: CredentialView {
                state: r.credential_facts.state.as_str().to_owned(),
                reason: r.credential_facts.reason.clone(),
                access_token_expires_at: r.credential_facts.access_token_expires_at,
                next_refresh_at: r.credential_facts.next_refresh_at,
                refresh_failure_count: r.credential_facts.refresh_failure_count,
                revision: r.credential_revision.0,
            },
            quota: QuotaView {
                state: r.quota.state.as_str().to_owned(),
                windows: QuotaWindowView::list(&r.quota.windows),
                observed_at: r.quota.observed_at,
            },
            today: TodayUsage {
                requests: v.today.requests,
                failed: v.today.failed,
                total_tokens: v.today.total_tokens,
                cost_nano_usd: v.today.cost_nano_usd,
            },
            last_used_at: v.last_used_at,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

//! `/backend-api/wham/usage` answered from the pool: the quota windows of the accounts a key
//! may use, aggregated, so that Codex's `/status` shows what the pool can still do rather than
//! what one account can.
//!
//! Rules (decision 0263): only schedulable accounts of the provider count (a disabled or
//! broken account adds no capacity). Per window name, the pool's used share is the mean of the
//! accounts' shares (each clamped to 0–100): with equal per-account windows that is the share
//! of the pool's total capacity already used. An account without that window is left out of
//! its mean unless its quota state says exhausted (it counts as 100 %). The reset is the
//! earliest reset of an account that has used some of the window: when the pool first gets
//! capacity back. The limit is reached when no account can serve (every one has a full window
//! or is exhausted) — or when the pool is empty.

use std::collections::BTreeMap;

use gateway_protocol::ApiError;
use time::OffsetDateTime;

use super::{Engine, auth};
use crate::domain::{ProviderKind, QuotaState};
use crate::snapshot::AccountEntry;

/// One aggregated window.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolWindow {
    /// Whole percent, 0–100.
    pub used_percent: u8,
    pub window_seconds: Option<i64>,
    /// Unix seconds.
    pub reset_at: Option<i64>,
}

/// The pool's quota as one account-shaped answer.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolUsage {
    /// Schedulable accounts in the pool.
    pub accounts: usize,
    /// The plan most of them have.
    pub plan_type: Option<String>,
    pub limit_reached: bool,
    /// By the provider's window name (OpenAI: `primary`, `secondary`).
    pub windows: BTreeMap<String, PoolWindow>,
}

/// Aggregates the quota windows of `accounts`.
pub fn aggregate<'a>(accounts: impl IntoIterator<Item = &'a AccountEntry>) -> PoolUsage {
    let accounts: Vec<&AccountEntry> = accounts.into_iter().filter(|a| a.is_schedulable()).collect();
    let mut names: Vec<String> =
        accounts.iter().flat_map(|a| a.record.quota.windows.iter().map(|w| w.name.clone())).collect();
    names.sort();
    names.dedup();
    let windows = names.into_iter().filter_map(|name| Some((name.clone(), window(&accounts, &name)?))).collect();
    let blocked = |a: &&AccountEntry| {
        a.record.quota.state == QuotaState::Exhausted || a.record.quota.windows.iter().any(|w| w.is_full())
    };
    PoolUsage {
        accounts: accounts.len(),
        plan_type: common_plan(&accounts),
        limit_reached: accounts.iter().all(blocked),
        windows,
    }
}

fn window(accounts: &[&AccountEntry], name: &str) -> Option<PoolWindow> {
    let mut shares = Vec::new();
    let mut window_seconds = None;
    let mut reset_at: Option<i64> = None;
    for account in accounts {
        let quota = &account.record.quota;
        match quota.windows.iter().find(|w| w.name == name) {
            Some(w) => {
                let used = w.used_percent.clamp(0.0, 100.0);
                shares.push(used);
                window_seconds = window_seconds.max(w.window_minutes.map(|m| m * 60));
                if used > 0.0
                    && let Some(at) = w.reset_at
                {
                    reset_at = Some(reset_at.map_or(at, |r| r.min(at)));
                }
            }
            None if quota.state == QuotaState::Exhausted => shares.push(100.0),
            None => {}
        }
    }
    if shares.is_empty() {
        return None;
    }
    let mean = shares.iter().sum::<f64>() / shares.len() as f64;
    Some(PoolWindow { used_percent: mean.round().clamp(0.0, 100.0) as u8, window_seconds, reset_at })
}

fn common_plan(accounts: &[&AccountEntry]) -> Option<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for plan in accounts.iter().filter_map(|a| a.record.profile.plan_type.as_deref()) {
        *counts.entry(plan).or_default() += 1;
    }
    counts.into_iter().max_by_key(|(plan, count)| (*count, std::cmp::Reverse(*plan))).map(|(p, _)| p.to_owned())
}

impl Engine {
    /// The pooled quota of `provider`'s accounts that the presented key may use.
    pub fn pool_usage(&self, api_key: Option<&str>, provider: ProviderKind) -> Result<PoolUsage, ApiError> {
        let snapshot = self.snapshots.current();
        let key = auth::authenticate(&snapshot, api_key, OffsetDateTime::now_utc())?;
        Ok(aggregate(snapshot.scoped_accounts(&key.scope, provider).map(|a| a.as_ref())))
    }
}

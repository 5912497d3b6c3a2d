//! The evaluated rules (decision 0285): `quota_exhausted`, `error_rate` and `backup_failing` are
//! conditions over stored facts, checked once per period by the leader replica; each condition
//! raises one alert when it starts to hold and again only after it stopped holding.
//!
//! The checks are pure functions over what the ports return; [`RuleEvaluator`] reads the ports,
//! keeps which conditions hold, and raises into the [`AlertSink`].

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use gateway_core::alerts::{Alert, AlertKind, AlertSink};
use gateway_core::domain::{AccountRecord, ProviderKind};
use gateway_core::snapshot::{AccountState, resolve_account_state};
use time::OffsetDateTime;

use crate::alert_settings::AlertRule;
use crate::backup::{BackupId, BackupRecord, BackupState, BackupTrigger};
use crate::ports::{AccountDirectory, AlertSettings, BackupJobs, StorageError, UsageQueries};
use crate::usage::OutcomeCounts;

/// Scheduled backups looked at to find the last finished one.
const BACKUPS_LOOKED_AT: u32 = 20;

/// Providers whose every account that could serve (enabled, working credential) is at 100 % of
/// a quota window, with how many accounts that is. A provider without such accounts is not.
pub fn exhausted_providers(accounts: &[AccountRecord], now: OffsetDateTime) -> Vec<(ProviderKind, usize)> {
    let mut out = Vec::new();
    for provider in &ProviderKind::ALL {
        let states: Vec<AccountState> = accounts
            .iter()
            .filter(|a| a.provider == *provider)
            .map(|a| resolve_account_state(a, None, now))
            .filter(|s| !matches!(s, AccountState::Disabled | AccountState::Error { .. }))
            .collect();
        if !states.is_empty() && states.iter().all(|s| *s == AccountState::QuotaExhausted) {
            out.push((*provider, states.len()));
        }
    }
    out
}

/// The share of failed requests (percent) among those that finished in the window, when it is
/// above the rule's threshold and at least `min_requests` finished.
pub fn error_rate_above(counts: &OutcomeCounts, rule: &AlertRule) -> Option<f64> {
    let finished = counts.finished;
    if finished == 0 || finished < u64::from(rule.min_requests) {
        return None;
    }
    let share = counts.failed as f64 * 100.0 / finished as f64;
    (share > rule.threshold_percent).then_some(share)
}

/// The newest finished scheduled backup, when it failed (records newest first).
pub fn failed_scheduled_backup(records: &[BackupRecord]) -> Option<&BackupRecord> {
    records
        .iter()
        .filter(|r| r.trigger == BackupTrigger::Scheduled)
        .find(|r| matches!(r.state, BackupState::Completed | BackupState::Failed))
        .filter(|r| r.state == BackupState::Failed)
}

/// A condition that holds now; an alert is raised when it starts to hold.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Condition {
    Quota(ProviderKind),
    ErrorRate,
    Backup(BackupId),
}

pub struct RuleSources {
    pub settings: Arc<dyn AlertSettings>,
    pub accounts: Arc<dyn AccountDirectory>,
    pub usage: Arc<dyn UsageQueries>,
    pub backups: Arc<dyn BackupJobs>,
}

pub struct RuleEvaluator {
    sources: RuleSources,
    sink: AlertSink,
    holding: HashSet<Condition>,
}

fn alert(kind: AlertKind, now: OffsetDateTime, provider: Option<ProviderKind>, reason: &str, message: String) -> Alert {
    Alert {
        kind,
        occurred_at: now,
        provider,
        account_id: None,
        client_key_id: None,
        reason: reason.to_owned(),
        message,
    }
}

impl RuleEvaluator {
    pub fn new(sources: RuleSources, sink: AlertSink) -> Self {
        Self { sources, sink, holding: HashSet::new() }
    }

    /// Checks every enabled rule at `now`; raises and returns the alerts of conditions that
    /// started to hold since the last evaluation.
    pub async fn evaluate(&mut self, now: OffsetDateTime) -> Result<Vec<Alert>, StorageError> {
        let rules = self.sources.settings.list_alert_rules().await?;
        let rule =
            |kind| rules.iter().find(|r| r.kind == kind).copied().unwrap_or_else(|| AlertRule::default_for(kind));
        let mut holding: Vec<(Condition, Alert)> = Vec::new();
        if rule(AlertKind::QuotaExhausted).enabled {
            let accounts = self.sources.accounts.list_accounts().await?;
            for (provider, count) in exhausted_providers(&accounts, now) {
                let message = format!("all {count} usable {provider} accounts are at 100 % of a quota window");
                let alert = alert(AlertKind::QuotaExhausted, now, Some(provider), "quota_exhausted", message);
                holding.push((Condition::Quota(provider), alert));
            }
        }
        let error_rate = rule(AlertKind::ErrorRate);
        if error_rate.enabled {
            let window = Duration::from_secs(u64::from(error_rate.window_seconds));
            let counts = self.sources.usage.outcome_counts(now - window, now).await?;
            if let Some(share) = error_rate_above(&counts, &error_rate) {
                let message = format!(
                    "{share:.1} % of the requests of the last {} s failed (threshold {} %)",
                    error_rate.window_seconds, error_rate.threshold_percent
                );
                holding.push((Condition::ErrorRate, alert(AlertKind::ErrorRate, now, None, "error_rate", message)));
            }
        }
        if rule(AlertKind::BackupFailing).enabled {
            let records = self.sources.backups.list_backups(None, BACKUPS_LOOKED_AT).await?;
            if let Some(failed) = failed_scheduled_backup(&records) {
                let reason = failed.error_code.clone().unwrap_or_else(|| "backup_failed".to_owned());
                let message = format!("the last scheduled backup (#{}) failed", failed.id.0);
                holding
                    .push((Condition::Backup(failed.id), alert(AlertKind::BackupFailing, now, None, &reason, message)));
            }
        }
        let mut raised = Vec::new();
        let now_holding: HashSet<Condition> = holding.iter().map(|(c, _)| c.clone()).collect();
        for (condition, alert) in holding {
            if !self.holding.contains(&condition) {
                self.sink.raise(alert.clone());
                raised.push(alert);
            }
        }
        self.holding = now_holding;
        Ok(raised)
    }
}

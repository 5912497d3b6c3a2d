//! The account list and detail as the admin sees them: stored facts plus the derived state
//! (the core resolver with the Redis cooldowns), live in-flight slots, effective cap, groups,
//! today's usage and last use — everything a list row needs, in a fixed number of round trips
//! (no per-row calls).

use std::collections::HashMap;

use time::OffsetDateTime;

use gateway_core::coordination::Cooldowns;
use gateway_core::domain::{AccountId, AccountRecord, GroupId};
use gateway_core::snapshot::{AccountState, CoolingDown, resolve_account_state};

use crate::error::AdminError;
use crate::ports::{AccountDirectory, GroupDirectory, InFlightCounts, RuntimeSettingsReader, UsageQueries};
use crate::usage::{UsageDimension, UsageFilter, UsageTotals};

/// The ports the views read.
pub struct AccountViewSources<'a> {
    pub accounts: &'a dyn AccountDirectory,
    pub groups: &'a dyn GroupDirectory,
    pub settings: &'a dyn RuntimeSettingsReader,
    pub cooldowns: &'a dyn Cooldowns,
    pub in_flight: &'a dyn InFlightCounts,
    pub usage: &'a dyn UsageQueries,
}

pub struct AccountView {
    pub record: AccountRecord,
    pub state: AccountState,
    pub in_flight: u32,
    /// The account's cap or the runtime default.
    pub effective_cap: u32,
    pub groups: Vec<GroupId>,
    /// Since the start of today in the requested zone.
    pub today: UsageTotals,
    pub last_used_at: Option<OffsetDateTime>,
}

/// Every account (ascending id) with its view facts. `tz` must be a known IANA zone.
pub async fn account_views(
    sources: &AccountViewSources<'_>,
    now: OffsetDateTime,
    tz: &str,
) -> Result<Vec<AccountView>, AdminError> {
    let accounts = sources.accounts.list_accounts().await?;
    build(sources, accounts, now, tz).await
}

pub async fn account_view(
    sources: &AccountViewSources<'_>,
    id: AccountId,
    now: OffsetDateTime,
    tz: &str,
) -> Result<AccountView, AdminError> {
    let account = sources.accounts.get_account(id).await?;
    let mut views = build(sources, vec![account], now, tz).await?;
    views.pop().ok_or_else(|| AdminError::NotFound(format!("account {id}")))
}

async fn build(
    sources: &AccountViewSources<'_>,
    accounts: Vec<AccountRecord>,
    now: OffsetDateTime,
    tz: &str,
) -> Result<Vec<AccountView>, AdminError> {
    let ids: Vec<AccountId> = accounts.iter().map(|a| a.id).collect();
    let (_, settings) = sources.settings.read_runtime_settings().await?;
    let cooldowns = sources.cooldowns.cooldowns(&ids).await?;
    let in_flight = sources.in_flight.in_flight(&ids).await?;
    let mut memberships: HashMap<AccountId, Vec<GroupId>> = HashMap::new();
    for group in sources.groups.list_groups().await? {
        for account in group.account_ids {
            memberships.entry(account).or_default().push(group.id);
        }
    }
    let starts = sources.usage.calendar_starts(now, tz).await?;
    let filter = UsageFilter { from: Some(starts.day), ..UsageFilter::default() };
    let mut today: HashMap<String, UsageTotals> = sources
        .usage
        .usage_groups(&filter, UsageDimension::Account, 10_000)
        .await?
        .into_iter()
        .filter_map(|g| g.key.map(|k| (k, g.totals)))
        .collect();
    let last_used: HashMap<AccountId, OffsetDateTime> =
        sources.usage.last_used_by_account().await?.into_iter().collect();
    Ok(accounts
        .into_iter()
        .enumerate()
        .map(|(i, record)| {
            let cooldown = cooldowns.get(i).copied().flatten().and_then(CoolingDown::of);
            AccountView {
                state: resolve_account_state(&record, cooldown, now),
                in_flight: in_flight.get(i).copied().unwrap_or(0),
                effective_cap: record.scheduling.concurrency_cap.unwrap_or(settings.default_account_concurrency).max(1),
                groups: memberships.remove(&record.id).unwrap_or_default(),
                today: today.remove(&record.id.0.to_string()).unwrap_or_default(),
                last_used_at: last_used.get(&record.id).copied(),
                record,
            }
        })
        .collect())
}

//! The pool at scrape time, from the routing snapshot and this replica's held slots: accounts by
//! provider and state, quota used-percent per window, requests in flight per account. Account
//! labels are the account id (bounded by the pool; never an e-mail or a token).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use gateway_core::domain::AccountId;
use gateway_core::snapshot::{RuntimeSnapshot, resolve_account_state};
use time::OffsetDateTime;

pub fn render(out: &mut String, snapshot: &RuntimeSnapshot, in_flight: &HashMap<AccountId, u32>) {
    let now = OffsetDateTime::now_utc();
    let mut by_state: BTreeMap<(&str, &str), u32> = BTreeMap::new();
    for account in snapshot.accounts() {
        // Cooldowns live in coordination storage: a cooling account counts as `normal` here.
        let state = resolve_account_state(&account.record, None, now);
        *by_state.entry((account.provider().as_str(), state.name())).or_default() += 1;
    }
    let _ = writeln!(
        out,
        "# HELP switchboard_accounts Accounts by provider and derived state (cooldowns not included).\n# TYPE switchboard_accounts gauge"
    );
    for ((provider, state), count) in &by_state {
        let _ = writeln!(out, "switchboard_accounts{{provider=\"{provider}\",state=\"{state}\"}} {count}");
    }
    let _ = writeln!(
        out,
        "# HELP switchboard_account_quota_used_percent Used share of each quota window, as the provider last reported it.\n# TYPE switchboard_account_quota_used_percent gauge"
    );
    for account in snapshot.accounts() {
        for window in &account.record.quota.windows {
            let _ = writeln!(
                out,
                "switchboard_account_quota_used_percent{{provider=\"{}\",account=\"{}\",window=\"{}\"}} {}",
                account.provider().as_str(),
                account.id().0,
                label_value(&window.name),
                window.used_percent
            );
        }
    }
    let _ = writeln!(
        out,
        "# HELP switchboard_account_in_flight Requests holding a slot of the account on this replica.\n# TYPE switchboard_account_in_flight gauge"
    );
    for account in snapshot.accounts() {
        let count = in_flight.get(&account.id()).copied().unwrap_or(0);
        let _ = writeln!(
            out,
            "switchboard_account_in_flight{{provider=\"{}\",account=\"{}\"}} {count}",
            account.provider().as_str(),
            account.id().0
        );
    }
}

/// A provider-reported window name as a safe label value.
fn label_value(name: &str) -> String {
    name.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')).take(64).collect()
}

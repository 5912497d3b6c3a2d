//! The pooled quota behind `/backend-api/wham/usage` (`src/engine/pool_usage.rs`).

use gateway_core::domain::{ProviderKind, QuotaState, QuotaWindow};
use gateway_core::engine::pool_usage::aggregate;
use gateway_core::snapshot::AccountEntry;

use crate::fixtures::account;

fn window(name: &str, used_percent: f64, minutes: i64, reset_at: i64) -> QuotaWindow {
    QuotaWindow {
        name: name.to_owned(),
        used_percent,
        window_minutes: Some(minutes),
        reset_at: Some(reset_at),
        plan_type: None,
    }
}

fn entry(id: i64, state: QuotaState, windows: Vec<QuotaWindow>) -> AccountEntry {
    let mut record = account(id, ProviderKind::Openai);
    record.quota.state = state;
    record.quota.windows = windows;
    AccountEntry { record, max_in_flight: 4, egress_proxy: None }
}

#[test]
fn the_pool_window_is_the_mean_share_with_the_earliest_reset_of_a_used_account() {
    let accounts = [
        entry(
            1,
            QuotaState::Allowed,
            vec![window("primary", 20.0, 300, 2_000), window("secondary", 10.0, 10_080, 9_000)],
        ),
        entry(
            2,
            QuotaState::Allowed,
            vec![window("primary", 60.0, 300, 1_500), window("secondary", 30.0, 10_080, 8_000)],
        ),
        entry(3, QuotaState::Allowed, vec![window("primary", 0.0, 300, 100)]),
    ];
    let pool = aggregate(&accounts);
    assert_eq!(pool.accounts, 3);
    let primary = &pool.windows["primary"];
    assert_eq!(primary.used_percent, 27, "(20 + 60 + 0) / 3");
    assert_eq!(primary.window_seconds, Some(300 * 60));
    assert_eq!(primary.reset_at, Some(1_500), "an unused account's reset frees nothing");
    assert_eq!(pool.windows["secondary"].used_percent, 20, "accounts without the window are left out of its mean");
    assert!(!pool.limit_reached);
    assert_eq!(pool.plan_type.as_deref(), Some("pro"));
}

#[test]
fn the_limit_is_reached_only_when_no_account_can_serve() {
    let full = |id| entry(id, QuotaState::Allowed, vec![window("primary", 130.0, 300, 50)]);
    let one_left = [full(1), entry(2, QuotaState::Allowed, vec![window("primary", 99.0, 300, 60)])];
    let pool = aggregate(&one_left);
    assert!(!pool.limit_reached);
    assert_eq!(pool.windows["primary"].used_percent, 100, "clamped shares: (100 + 99) / 2 rounds to 100");
    let none_left = [full(1), entry(2, QuotaState::Exhausted, Vec::new())];
    let pool = aggregate(&none_left);
    assert!(pool.limit_reached);
    assert_eq!(pool.windows["primary"].used_percent, 100, "an exhausted account without the window counts as full");
}

#[test]
fn unusable_accounts_add_no_capacity_and_an_empty_pool_is_at_its_limit() {
    let mut disabled = entry(1, QuotaState::Allowed, vec![window("primary", 0.0, 300, 10)]);
    disabled.record.scheduling.enabled = false;
    let used = entry(2, QuotaState::Allowed, vec![window("primary", 80.0, 300, 10)]);
    let pool = aggregate([&disabled, &used]);
    assert_eq!((pool.accounts, pool.windows["primary"].used_percent), (1, 80));
    let empty = aggregate(std::iter::empty::<&AccountEntry>());
    assert!(empty.limit_reached && empty.windows.is_empty() && empty.plan_type.is_none());
}

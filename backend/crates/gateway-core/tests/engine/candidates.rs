use std::collections::HashMap;

use gateway_core::domain::{AccountId, ProviderKind, QuotaState, QuotaWindow, RotationStrategy, Weight};
use gateway_core::engine::candidates::CandidatePool;
use gateway_core::snapshot::AccountEntry;

use crate::fixtures::account;

fn window(name: &str, used_percent: f64, reset_at: i64) -> QuotaWindow {
    QuotaWindow { name: name.to_owned(), used_percent, window_minutes: None, reset_at: Some(reset_at), plan_type: None }
}

fn entries(weights: &[u8]) -> Vec<AccountEntry> {
    weights
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let mut record = account(i as i64 + 1, ProviderKind::Openai);
            record.scheduling.weight = Weight::new(*w).expect("weight");
            AccountEntry { record, max_in_flight: 4, egress_proxy: None }
        })
        .collect()
}

fn pool(entries: &[AccountEntry]) -> CandidatePool {
    CandidatePool::build(entries.iter().enumerate())
}

#[test]
fn picks_at_most_k_distinct_accounts_and_skips_excluded_ones() {
    fastrand::seed(7);
    let entries = entries(&[1; 40]);
    let pool = pool(&entries);
    for strategy in [
        RotationStrategy::Smart,
        RotationStrategy::RoundRobin,
        RotationStrategy::Sticky,
        RotationStrategy::QuotaResetPriority,
    ] {
        let excluded = [AccountId(1), AccountId(2)];
        let picked = pool.pick(strategy, 16, &excluded, 0);
        assert_eq!(picked.len(), 16, "{strategy:?}");
        let mut distinct = picked.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 16, "{strategy:?} picked duplicates");
        assert!(!picked.contains(&0) && !picked.contains(&1), "{strategy:?} picked an excluded account");
    }
}

#[test]
fn weights_shape_the_smart_first_choice() {
    fastrand::seed(11);
    // Account 1 weighs 9× account 2.
    let entries = entries(&[90, 10]);
    let pool = pool(&entries);
    let mut first: HashMap<usize, u32> = HashMap::new();
    for _ in 0..2000 {
        *first.entry(pool.pick(RotationStrategy::Smart, 1, &[], 0)[0]).or_default() += 1;
    }
    let heavy = f64::from(first[&0]) / 2000.0;
    assert!((0.85..0.95).contains(&heavy), "heavy account first in {heavy} of picks");
}

#[test]
fn large_pools_sample_by_weight_too() {
    fastrand::seed(3);
    let mut weights = vec![1u8; 200];
    weights[0] = 100;
    let entries = entries(&weights);
    let pool = pool(&entries);
    let hits = (0..1000).filter(|_| pool.pick(RotationStrategy::Smart, 4, &[], 0).contains(&0)).count();
    assert!(hits > 500, "the weight-100 account appeared in {hits} of 1000 samples of 4 out of 200");
}

#[test]
fn round_robin_rotates_and_sticky_keeps_its_order() {
    let entries = entries(&[1, 1, 1]);
    let pool = pool(&entries);
    let firsts: Vec<usize> = (0..3).map(|_| pool.pick(RotationStrategy::RoundRobin, 1, &[], 0)[0]).collect();
    let mut sorted = firsts.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, vec![0, 1, 2], "round robin visits every account: {firsts:?}");
    let sticky: Vec<usize> = (0..3).map(|_| pool.pick(RotationStrategy::Sticky, 1, &[], 0)[0]).collect();
    assert_eq!(sticky, vec![0, 0, 0]);
}

#[test]
fn exhausted_accounts_wait_for_their_reset() {
    let mut entries = entries(&[1, 1]);
    entries[0].record.quota.state = QuotaState::Exhausted;
    entries[0].record.quota.windows = vec![window("primary", 100.0, 1000)];
    let pool = pool(&entries);
    assert_eq!(pool.pick(RotationStrategy::Sticky, 2, &[], 999), vec![1]);
    assert_eq!(pool.pick(RotationStrategy::Sticky, 2, &[], 1000), vec![0, 1]);
}

#[test]
fn quota_reset_priority_prefers_the_soonest_reset() {
    let mut entries = entries(&[1, 1, 1]);
    entries[0].record.quota.windows = vec![window("", 10.0, 5000)];
    entries[1].record.quota.windows = vec![window("", 10.0, 2000)];
    let pool = pool(&entries);
    assert_eq!(pool.pick(RotationStrategy::QuotaResetPriority, 3, &[], 0), vec![1, 0, 2]);
}

#[test]
fn an_exhausted_account_waits_only_for_its_full_windows() {
    let mut entries = entries(&[1]);
    entries[0].record.quota.state = QuotaState::Exhausted;
    // The 5-hour window is full and resets at 1000; the weekly one is not full (resets later).
    entries[0].record.quota.windows = vec![window("primary", 100.0, 1000), window("secondary", 40.0, 9000)];
    let pool = pool(&entries);
    assert!(pool.pick(RotationStrategy::Sticky, 1, &[], 999).is_empty());
    assert_eq!(pool.pick(RotationStrategy::Sticky, 1, &[], 1000), vec![0]);
}

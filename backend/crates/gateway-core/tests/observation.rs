use gateway_core::domain::{AccountId, QuotaFacts};
use gateway_core::observation::{Observation, observation_queue};
use std::sync::atomic::Ordering;

fn quota() -> Observation {
    Observation::Quota { account: AccountId(1), facts: Box::new(QuotaFacts::default()) }
}

#[test]
fn a_full_queue_counts_and_drops_instead_of_waiting() {
    let (queue, _receiver) = observation_queue(2, 1 << 20);
    assert!(queue.push(quota()));
    assert!(queue.push(quota()));
    assert!(!queue.push(quota()));
    assert_eq!(queue.stats().enqueued.load(Ordering::Relaxed), 2);
    assert_eq!(queue.stats().dropped_full.load(Ordering::Relaxed), 1);
}

#[test]
fn the_byte_budget_bounds_the_queue_too() {
    let (queue, _receiver) = observation_queue(1000, 200);
    assert!(queue.push(quota()));
    assert!(!queue.push(quota()), "a second observation exceeds 200 bytes");
    assert_eq!(queue.stats().dropped_full.load(Ordering::Relaxed), 1);
}

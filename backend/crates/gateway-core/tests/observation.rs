use std::sync::atomic::Ordering;

use gateway_core::domain::{AccountId, OpsEvent, OpsLevel, QuotaFacts};
use gateway_core::observation::{Observation, observation_queue};

fn event() -> Observation {
    Observation::Ops(Box::new(OpsEvent {
        occurred_at: time::OffsetDateTime::now_utc(),
        level: OpsLevel::Info,
        kind: "test.event".to_owned(),
        provider: None,
        account_id: None,
        request_id: None,
        message: "m".to_owned(),
        details: serde_json::json!({}),
    }))
}

#[test]
fn a_full_queue_counts_and_drops_instead_of_waiting() {
    let (queue, _receiver) = observation_queue(2, 1 << 20);
    assert!(queue.push(event()));
    assert!(queue.push(event()));
    assert!(!queue.push(event()));
    assert_eq!(queue.stats().enqueued.load(Ordering::Relaxed), 2);
    assert_eq!(queue.stats().dropped_full.load(Ordering::Relaxed), 1);
}

#[test]
fn the_byte_budget_bounds_the_queue_too() {
    let (queue, _receiver) = observation_queue(1000, 300);
    assert!(queue.push(event()));
    assert!(!queue.push(event()), "a second observation exceeds 300 bytes");
    assert_eq!(queue.stats().dropped_full.load(Ordering::Relaxed), 1);
}

#[test]
fn quota_observations_are_coalesced_not_queued() {
    let (queue, _receiver) = observation_queue(1, 300);
    for _ in 0..10 {
        assert!(queue.push(Observation::Quota { account: AccountId(1), facts: Box::new(QuotaFacts::default()) }));
    }
    assert_eq!(queue.stats().enqueued.load(Ordering::Relaxed), 0);
    assert!(queue.push(event()), "the queue still has room for a request observation");
}

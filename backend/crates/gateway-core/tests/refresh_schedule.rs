//! The refresh schedule: ahead of expiry after a success; 5/15/45/135/300 s then every 10 min
//! after transient failures, never past a working token's expiry, given up at expiry + 24 h.

use std::time::Duration;

use gateway_core::refresh_schedule::{RetryPlan, after_success, after_transient_failure, backoff};
use time::OffsetDateTime;
use time::macros::datetime;

const NOW: OffsetDateTime = datetime!(2026-06-01 12:00 UTC);

fn secs(s: i64) -> time::Duration {
    time::Duration::seconds(s)
}

#[test]
fn the_backoff_steps_then_settles_at_ten_minutes() {
    let steps: Vec<u64> = (1..=8).map(|n| backoff(n).as_secs()).collect();
    assert_eq!(steps, [5, 15, 45, 135, 300, 600, 600, 600]);
    assert_eq!(backoff(0).as_secs(), 5);
}

#[test]
fn a_success_schedules_the_margin_before_expiry() {
    let margin = Duration::from_secs(300);
    assert_eq!(after_success(Some(NOW + secs(3600)), margin, NOW), NOW + secs(3300));
    // A token shorter-lived than the margin is not refreshed in a loop.
    assert_eq!(after_success(Some(NOW + secs(60)), margin, NOW), NOW + secs(30));
    // An opaque token: Codex's eight days.
    assert_eq!(after_success(None, margin, NOW), NOW + secs(8 * 24 * 3600));
}

#[test]
fn failures_back_off_but_never_past_a_working_tokens_expiry() {
    let expires = NOW + secs(100);
    assert_eq!(after_transient_failure(1, Some(expires), NOW), RetryPlan::RetryAt(NOW + secs(5)));
    assert_eq!(after_transient_failure(3, Some(expires), NOW), RetryPlan::RetryAt(NOW + secs(45)));
    assert_eq!(after_transient_failure(4, Some(expires), NOW), RetryPlan::RetryAt(expires), "135 s > 100 s left");
    assert_eq!(after_transient_failure(9, None, NOW), RetryPlan::RetryAt(NOW + secs(600)), "no expiry, no bound");
}

#[test]
fn after_expiry_retries_continue_until_a_day_later() {
    let expired = NOW - secs(3600);
    assert_eq!(after_transient_failure(6, Some(expired), NOW), RetryPlan::RetryAt(NOW + secs(600)));
    // The last try lands on the deadline; a failure at the deadline gives up.
    let deadline = expired + secs(24 * 3600);
    let near = deadline - secs(60);
    assert_eq!(after_transient_failure(6, Some(expired), near), RetryPlan::RetryAt(deadline));
    assert_eq!(after_transient_failure(7, Some(expired), deadline), RetryPlan::GiveUp);
    assert_eq!(after_transient_failure(1, Some(NOW - secs(25 * 3600)), NOW), RetryPlan::GiveUp);
}

//! The log-linear histogram: precision, ordering, merging.

use std::time::Duration;

use loadgen::histogram::Histogram;

#[test]
fn small_values_are_exact() {
    let mut h = Histogram::new();
    for v in 0..=255 {
        h.record_micros(v);
    }
    assert_eq!(h.quantile(0.5), Some(127));
    assert_eq!(h.quantile(1.0), Some(255));
    assert_eq!(h.quantile(0.0), Some(0));
}

#[test]
fn large_values_are_within_one_percent() {
    for value in [256u64, 1_000, 12_345, 999_999, 7_654_321, 3_600_000_000] {
        let mut h = Histogram::new();
        h.record_micros(1);
        h.record_micros(value);
        h.record_micros(u64::MAX / 2);
        let p50 = h.quantile(0.5).expect("non-empty");
        assert!(p50 >= value && (p50 - value) as f64 <= value as f64 * 0.008, "{value} reported as {p50}");
    }
}

#[test]
fn summary_is_ordered_and_exact_at_the_ends() {
    let mut h = Histogram::new();
    // A skewed distribution: 1 ms for most, a 1 s tail.
    for i in 0..10_000u64 {
        h.record(Duration::from_micros(1_000 + i % 50));
    }
    for _ in 0..15 {
        h.record(Duration::from_secs(1));
    }
    let s = h.summary().expect("non-empty");
    assert_eq!(s.count, 10_015);
    assert_eq!(s.min, 1_000);
    assert_eq!(s.max, 1_000_000);
    assert!(s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.p99_9 && s.p99_9 <= s.max);
    assert!(s.p99 < 2_000, "the tail is under 1%: {s:?}");
    assert_eq!(s.p99_9, 1_000_000, "the tail is over 0.1%: {s:?}");
    assert!(s.mean > 1_000.0 && s.mean < 3_000.0);
}

#[test]
fn merging_equals_recording_together() {
    let (mut a, mut b, mut both) = (Histogram::new(), Histogram::new(), Histogram::new());
    for v in (0..5_000u64).map(|i| i * 37 % 20_011) {
        if v % 3 == 0 {
            a.record_micros(v)
        } else {
            b.record_micros(v)
        }
        both.record_micros(v);
    }
    let empty = Histogram::new();
    a.merge(&empty);
    a.merge(&b);
    assert_eq!(a.summary(), both.summary());
    let mut from_empty = Histogram::new();
    from_empty.merge(&both);
    assert_eq!(from_empty.summary(), both.summary());
    assert_eq!(Histogram::new().summary(), None);
}

//! The observation queue's counters and depth.

use std::fmt::Write;
use std::sync::atomic::Ordering;

use gateway_core::observation::ObservationStats;

pub fn render(out: &mut String, stats: &ObservationStats) {
    let mut counter = |name: &str, help: &str, value: u64| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}");
    };
    counter(
        "switchboard_observations_enqueued_total",
        "Observations accepted by the in-process queue.",
        stats.enqueued.load(Ordering::Relaxed),
    );
    counter(
        "switchboard_observations_written_total",
        "Observations written to the database.",
        stats.written.load(Ordering::Relaxed),
    );
    counter(
        "switchboard_observations_dropped_full_total",
        "Observations dropped because the queue was full (count or bytes).",
        stats.dropped_full.load(Ordering::Relaxed),
    );
    counter(
        "switchboard_observations_dropped_write_total",
        "Observations dropped because their write failed or shutdown ran out of time.",
        stats.dropped_write.load(Ordering::Relaxed),
    );
    counter(
        "switchboard_storage_write_errors_total",
        "Observation batch writes the database (PostgreSQL or SQLite) failed; unavailable-store failures are retried.",
        stats.write_errors.load(Ordering::Relaxed),
    );
    let _ = writeln!(
        out,
        "# HELP switchboard_observations_queued_bytes Bytes held by the observation queue.\n# TYPE switchboard_observations_queued_bytes gauge\nswitchboard_observations_queued_bytes {}",
        stats.queued_bytes.load(Ordering::Relaxed)
    );
}

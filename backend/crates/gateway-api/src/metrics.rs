//! `GET /metrics`: Prometheus text exposition of the gateway's own counters.

use std::fmt::Write;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use gateway_core::observation::ObservationStats;

#[derive(Clone)]
pub struct Metrics {
    pub observations: Arc<ObservationStats>,
}

pub fn metrics_routes(metrics: Metrics) -> Router {
    Router::new().route("/metrics", get(render)).with_state(metrics)
}

async fn render(State(metrics): State<Metrics>) -> impl IntoResponse {
    let stats = &metrics.observations;
    let mut out = String::with_capacity(1024);
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
    let _ = writeln!(
        out,
        "# HELP switchboard_observations_queued_bytes Bytes held by the observation queue.\n# TYPE switchboard_observations_queued_bytes gauge\nswitchboard_observations_queued_bytes {}",
        stats.queued_bytes.load(Ordering::Relaxed)
    );
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4"), (header::CACHE_CONTROL, "no-store")], out)
}

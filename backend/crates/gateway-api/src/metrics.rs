//! `GET /metrics`: Prometheus text exposition. Three parts, one job each: the engine's series as
//! the exporter renders them (requests, latencies, attempts, failovers, admission, refreshes),
//! the observation queue's counters ([`queue`]) and the pool as the routing snapshot sees it at
//! scrape time ([`pool`]: accounts by state, quota used-percent per window, in-flight per
//! account) and the upstream WebSocket pools ([`sockets`]) — computed when scraped, so the hot
//! path pays nothing for them.
//!
//! With `metrics.bearer_token` set the endpoint answers 401 without `Authorization: Bearer`.

pub mod config;
mod pool;
mod queue;
mod sockets;

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use gateway_core::coordination::HeldSlots;
use gateway_core::observation::ObservationStats;
use gateway_core::snapshot::SnapshotHolder;
use metrics_exporter_prometheus::PrometheusHandle;
use sha2::{Digest, Sha256};

pub use config::MetricsConfig;

#[derive(Clone)]
pub struct Metrics {
    pub observations: Arc<ObservationStats>,
    /// The engine's recorder; `None` renders only the scrape-time parts.
    pub exporter: Option<PrometheusHandle>,
    pub snapshots: SnapshotHolder,
    pub held: HeldSlots,
    /// SHA-256 of the bearer token `/metrics` requires, when one is configured.
    pub token_digest: Option<[u8; 32]>,
    /// The providers' upstream WebSocket pools, by provider name.
    pub socket_pools: Vec<(&'static str, Arc<dyn gateway_core::telemetry::SocketPoolSource>)>,
}

impl Metrics {
    /// The digest `token_digest` holds for `token`.
    pub fn digest(token: &str) -> [u8; 32] {
        Sha256::digest(token.as_bytes()).into()
    }
}

pub fn metrics_routes(metrics: Metrics) -> Router {
    Router::new().route("/metrics", get(render)).with_state(metrics)
}

async fn render(State(metrics): State<Metrics>, headers: HeaderMap) -> Response {
    if let Some(expected) = &metrics.token_digest
        && !authorized(&headers, expected)
    {
        let body = r#"{"error":{"message":"This endpoint needs Authorization: Bearer <metrics token>.","type":"invalid_request_error","code":"invalid_metrics_token"}}"#;
        return (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "application/json"), (header::WWW_AUTHENTICATE, "Bearer")],
            body,
        )
            .into_response();
    }
    let mut out = String::with_capacity(16 * 1024);
    if let Some(exporter) = &metrics.exporter {
        out.push_str(&exporter.render());
    }
    queue::render(&mut out, &metrics.observations);
    pool::render(&mut out, &metrics.snapshots.current(), &metrics.held.in_flight_by_account());
    sockets::render(&mut out, &metrics.socket_pools);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4"), (header::CACHE_CONTROL, "no-store")], out).into_response()
}

/// Compares digests, so the comparison's time says nothing about the token.
fn authorized(headers: &HeaderMap, expected: &[u8; 32]) -> bool {
    let Some(token) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
    else {
        return false;
    };
    let actual = Metrics::digest(token.trim());
    actual.iter().zip(expected).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0
}

//! Liveness and readiness: `GET /healthz` answers while the process runs; `GET /readyz` answers
//! 200 only when every readiness probe (storage, coordination) passes, every worker is healthy
//! and the process is not draining.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Map, Value, json};

use crate::Shutdown;
use crate::workers::WorkerRegistry;

/// A dependency whose reachability decides readiness (a database, Redis, …).
#[async_trait]
pub trait ReadinessProbe: Send + Sync + 'static {
    fn name(&self) -> &str;
    /// `Err` carries a short reason fit for operators; it must not contain secrets.
    async fn check(&self) -> Result<(), String>;
}

/// Everything `/readyz` looks at.
#[derive(Clone)]
pub struct Health {
    probes: Arc<Vec<Arc<dyn ReadinessProbe>>>,
    workers: WorkerRegistry,
    shutdown: Shutdown,
    probe_timeout: Duration,
}

impl Health {
    pub fn new(probes: Vec<Arc<dyn ReadinessProbe>>, workers: WorkerRegistry, shutdown: Shutdown) -> Self {
        Self { probes: Arc::new(probes), workers, shutdown, probe_timeout: Duration::from_secs(2) }
    }

    /// Runs every probe (concurrently, each bounded by a timeout) and reports the whole state.
    pub async fn readiness(&self) -> (bool, Value) {
        let checks = futures_util::future::join_all(self.probes.iter().map(|probe| async move {
            let result = match tokio::time::timeout(self.probe_timeout, probe.check()).await {
                Ok(result) => result,
                Err(_) => Err(format!("no answer within {} ms", self.probe_timeout.as_millis())),
            };
            (probe.name().to_owned(), result)
        }))
        .await;
        let mut ready = !self.shutdown.is_triggered();
        let mut report = Map::new();
        for (name, result) in checks {
            ready &= result.is_ok();
            report.insert(
                name,
                match result {
                    Ok(()) => json!({"status": "ok"}),
                    Err(reason) => json!({"status": "failing", "reason": reason}),
                },
            );
        }
        let workers = self.workers.snapshot();
        ready &= workers.iter().all(|w| w.healthy);
        let body = json!({
            "status": if ready { "ready" } else { "not_ready" },
            "draining": self.shutdown.is_triggered(),
            "checks": report,
            "workers": workers,
        });
        (ready, body)
    }

    /// The `/healthz` and `/readyz` routes.
    pub fn routes(self) -> Router {
        Router::new().route("/healthz", get(healthz)).route("/readyz", get(readyz)).with_state(self)
    }
}

async fn healthz() -> Response {
    no_store((StatusCode::OK, axum::Json(json!({"status": "ok"}))).into_response())
}

async fn readyz(State(health): State<Health>) -> Response {
    let (ready, body) = health.readiness().await;
    let status = if ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    no_store((status, axum::Json(body)).into_response())
}

fn no_store(mut response: Response) -> Response {
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

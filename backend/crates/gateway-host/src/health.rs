//! Liveness and readiness: `GET /healthz` answers while the process runs (with the version it
//! runs, which the self-update checks); `GET /readyz` tells whether this replica can serve.
//!
//! `/readyz` answers 503 (`not_ready`) only when the replica cannot serve: a
//! [`ProbeRole::Required`] probe fails (coordination, the routing snapshot) or the process is
//! draining. A failing [`ProbeRole::Degrades`] probe (PostgreSQL while the snapshot is in
//! memory) or an unhealthy background worker answers 200 with `status: degraded` and the
//! reasons under `degraded`: the replica still serves and stays in rotation.

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

/// What a failing probe means for this replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeRole {
    /// The replica cannot serve without it: a failure takes it out of rotation.
    Required,
    /// The replica serves without it, with less: a failure is reported as degraded.
    Degrades,
}

impl ProbeRole {
    fn as_str(self) -> &'static str {
        match self {
            Self::Required => "required",
            Self::Degrades => "degrades",
        }
    }
}

/// A dependency whose state `/readyz` reports (a database, Redis, the routing snapshot, …).
#[async_trait]
pub trait ReadinessProbe: Send + Sync + 'static {
    fn name(&self) -> &str;

    fn role(&self) -> ProbeRole {
        ProbeRole::Required
    }

    /// `Err` carries a short reason fit for operators; it must not contain secrets.
    async fn check(&self) -> Result<(), String>;

    /// Facts shown next to the probe's status (e.g. the snapshot's revision and age).
    fn details(&self) -> Map<String, Value> {
        Map::new()
    }
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

    /// Runs every probe (concurrently, each bounded by a timeout) and reports the whole state:
    /// whether the replica can serve (200) and the body of `/readyz`.
    pub async fn readiness(&self) -> (bool, Value) {
        let checks = futures_util::future::join_all(self.probes.iter().map(|probe| async move {
            let result = match tokio::time::timeout(self.probe_timeout, probe.check()).await {
                Ok(result) => result,
                Err(_) => Err(format!("no answer within {} ms", self.probe_timeout.as_millis())),
            };
            (probe, result)
        }))
        .await;
        let draining = self.shutdown.is_triggered();
        let mut ready = !draining;
        let mut degraded = Vec::new();
        let mut report = Map::new();
        for (probe, result) in checks {
            let mut entry = probe.details();
            entry.insert("role".to_owned(), json!(probe.role().as_str()));
            match result {
                Ok(()) => {
                    entry.insert("status".to_owned(), json!("ok"));
                }
                Err(reason) => {
                    match probe.role() {
                        ProbeRole::Required => ready = false,
                        ProbeRole::Degrades => degraded.push(format!("{}: {reason}", probe.name())),
                    }
                    entry.insert("status".to_owned(), json!("failing"));
                    entry.insert("reason".to_owned(), json!(reason));
                }
            }
            report.insert(probe.name().to_owned(), Value::Object(entry));
        }
        let workers = self.workers.snapshot();
        for worker in workers.iter().filter(|w| !w.healthy) {
            let state = serde_json::to_value(worker.state).unwrap_or(Value::Null);
            let state = state.as_str().unwrap_or("unhealthy");
            degraded.push(match &worker.last_error {
                Some(error) => format!("worker {}: {state} ({error})", worker.name),
                None => format!("worker {}: {state}", worker.name),
            });
        }
        let status = match (ready, degraded.is_empty()) {
            (false, _) => "not_ready",
            (true, true) => "ready",
            (true, false) => "degraded",
        };
        let body = json!({
            "status": status,
            "draining": draining,
            "checks": report,
            "degraded": degraded,
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
    no_store(
        (StatusCode::OK, axum::Json(json!({"status": "ok", "version": crate::build_info::version()}))).into_response(),
    )
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

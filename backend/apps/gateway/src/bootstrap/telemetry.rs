//! Metrics: the Prometheus recorder the engine records into (not installed globally: each
//! gateway owns its own), its histogram buckets, and the upkeep worker that drains histogram
//! samples when nobody scrapes.

use std::sync::Arc;
use std::time::Duration;

use gateway_api::MetricsConfig;
use gateway_core::telemetry::{Telemetry, TelemetrySettings, names};
use gateway_host::{FnWorker, WorkerRuntime};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::StartError;

/// Latency buckets (seconds) of the request histograms.
const LATENCY_BUCKETS: &[f64] =
    &[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0];
/// The gateway's own added time is sub-millisecond when healthy: finer buckets.
const OVERHEAD_BUCKETS: &[f64] =
    &[0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0];

pub struct Metrics {
    pub telemetry: Telemetry,
    pub exporter: Option<PrometheusHandle>,
}

pub fn build(config: &MetricsConfig, workers: &mut WorkerRuntime) -> Result<Metrics, StartError> {
    if !config.enabled {
        return Ok(Metrics { telemetry: Telemetry::disabled(), exporter: None });
    }
    let wiring = |e: metrics_exporter_prometheus::BuildError| StartError::Wiring(format!("metrics recorder: {e}"));
    let recorder = PrometheusBuilder::new()
        .set_buckets(LATENCY_BUCKETS)
        .map_err(wiring)?
        .set_buckets_for_metric(Matcher::Full(names::GATEWAY_OVERHEAD.to_owned()), OVERHEAD_BUCKETS)
        .map_err(wiring)?
        .build_recorder();
    let exporter = recorder.handle();
    let settings = TelemetrySettings { model_label: config.model_label, max_models: config.max_models };
    let telemetry = Telemetry::new(Arc::new(recorder), settings);
    workers
        .register(FnWorker::periodic("metrics-upkeep", Duration::from_secs(5), {
            let exporter = exporter.clone();
            move || {
                let exporter = exporter.clone();
                Box::pin(async move {
                    exporter.run_upkeep();
                    Ok(())
                })
            }
        }))
        .map_err(StartError::Wiring)?;
    Ok(Metrics { telemetry, exporter: Some(exporter) })
}

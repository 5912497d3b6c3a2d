//! The engine's metrics after a scripted run equal the requests and outcomes made.

use std::sync::Arc;

use gateway_core::domain::{ProviderKind, SendState};
use gateway_core::fault::Fault;
use gateway_core::telemetry::{Telemetry, TelemetrySettings, names};
use metrics_exporter_prometheus::PrometheusBuilder;

use super::sample;
use crate::engine::support::world::{Answer, JSON, World};

#[tokio::test(start_paused = true)]
async fn counters_equal_the_requests_attempts_and_failovers_made() {
    let recorder = PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    let telemetry = Telemetry::new(Arc::new(recorder), TelemetrySettings::default());
    let world = World::with(&[1, 2], &[], |setup| setup.telemetry = telemetry.clone());

    // Two answered requests, the second after one failover from a 503.
    world.openai.then_answer();
    assert_eq!(Answer::of(world.send(JSON).await).error(), None);
    world.openai.then_fail(Fault::UpstreamUnavailable, SendState::NotSent, Some(503)).then_answer();
    assert_eq!(Answer::of(world.send(JSON).await).error(), None);
    // Refused before a model: a wrong key and a broken body.
    assert_eq!(Answer::of(world.send_with(JSON, Some("sk-wrong"), Vec::new()).await).expect_error().0, 401);
    assert_eq!(Answer::of(world.send("{").await).expect_error().0, 400);

    let text = handle.render();
    let ok = [("status_class", "2xx"), ("provider", "openai"), ("outcome", "completed")];
    assert_eq!(sample(&text, names::REQUESTS, &ok), 2.0, "{text}");
    assert_eq!(sample(&text, names::REQUESTS, &[("status_class", "4xx"), ("model", "none")]), 2.0, "{text}");
    assert_eq!(sample(&text, names::REQUESTS, &[]), 4.0);
    let openai = ProviderKind::Openai.as_str();
    assert_eq!(sample(&text, names::UPSTREAM_ATTEMPTS, &[("provider", openai), ("outcome", "ok")]), 2.0);
    let unavailable = [("provider", openai), ("outcome", "upstream_unavailable")];
    assert_eq!(sample(&text, names::UPSTREAM_ATTEMPTS, &unavailable), 1.0);
    let failover = [("provider", openai), ("reason", "upstream_unavailable")];
    assert_eq!(sample(&text, names::FAILOVERS, &failover), 1.0);
    let count = |name: &str| format!("{name}_count");
    let served = [("provider", openai)];
    assert_eq!(sample(&text, &count(names::REQUEST_DURATION), &served), 2.0, "{text}");
    assert_eq!(sample(&text, &count(names::GATEWAY_OVERHEAD), &served), 2.0);
    assert_eq!(sample(&text, &count(names::TIME_TO_FIRST_BYTE), &served), 2.0);
    world.stop().await;
}

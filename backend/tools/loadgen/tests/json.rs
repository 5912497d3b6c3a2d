//! JSON mode: whole bodies read, bytes counted, no events.

use crate::servers::http::{Reply, Sse, serve};
use crate::{assert_dominated, assert_ordered, run};

#[tokio::test]
async fn reads_whole_bodies() {
    let server = serve(Reply::Json(1000)).await;
    let report = run(&["json", &server.url("/v1/models"), "-X", "GET", "-c", "4", "-n", "20"]).await;

    assert_eq!(report.requests.ok, 20);
    assert_eq!(report.bytes.total, 20 * 1000);
    assert_eq!(report.bytes.per_request, 1000.0);
    assert_eq!(report.events.total, 0);
    assert_eq!(report.latency_us.first_event.count, 0);
    assert_eq!(report.latency_us.first_event.p50, None);
    assert_ordered("ttfb", &report.latency_us.ttfb);
    assert_ordered("total", &report.latency_us.total);
    assert_dominated(&report.latency_us.ttfb, &report.latency_us.total);
    assert_eq!(report.target.method, "GET");
}

#[tokio::test]
async fn an_event_stream_is_a_protocol_error_in_json_mode() {
    let server = serve(Reply::Sse(Sse::events(3))).await;
    let report = run(&["json", &server.url("/"), "-d", "{}", "-n", "3"]).await;
    assert_eq!(report.errors.protocol, 3);
    assert_eq!(report.requests.ok, 0);
}

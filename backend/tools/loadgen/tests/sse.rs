//! SSE mode against streams with known event counts and gaps.

use std::time::Duration;

use crate::servers::http::{Reply, Sse, serve, serve_with};
use crate::{assert_dominated, assert_ordered, run};

#[tokio::test]
async fn counts_events_gaps_and_orders_latencies() {
    let sse = Sse { gap: Duration::from_millis(10), ..Sse::events(5) };
    let server = serve(Reply::Sse(sse)).await;
    let report = run(&["sse", &server.url("/v1/responses"), "-d", "{}", "-c", "3", "-n", "12", "--warmup", "3"]).await;

    assert_eq!(report.requests.ok, 12);
    assert_eq!(report.requests.completed, 12);
    assert_eq!(report.errors.total, 0);
    assert_eq!(report.status.get("200"), Some(&12));
    assert_eq!(report.events.total, 60);
    let l = &report.latency_us;
    assert_eq!(l.ttfb.count, 12);
    assert_eq!(l.first_event.count, 12);
    assert_eq!(l.total.count, 12);
    assert_eq!(l.event_gap.count, 12 * 4, "four gaps per five-event stream");
    for (name, s) in
        [("ttfb", &l.ttfb), ("first_event", &l.first_event), ("event_gap", &l.event_gap), ("total", &l.total)]
    {
        assert_ordered(name, s);
    }
    assert_dominated(&l.ttfb, &l.first_event);
    assert_dominated(&l.first_event, &l.total);
    // The server sleeps 4 × 10 ms after sending headers: no stream can complete faster.
    assert!(l.total.min.unwrap_or_default() >= 40_000, "{:?}", l.total);
    // Warm-up requests are excluded; the connections they opened are reused.
    assert!(report.connections.opened < 3, "{}", report.connections.opened);
    assert!(report.requests.ok_per_s > 0.0);
    assert!(report.bytes.total > 0);
}

#[tokio::test]
async fn events_in_one_chunk_have_zero_gaps_and_comments_are_not_events() {
    let sse = Sse { one_chunk: true, comments: true, ..Sse::events(25) };
    let server = serve(Reply::Sse(sse)).await;
    let report = run(&["sse", &server.url("/"), "-d", "{}", "-c", "2", "-n", "6"]).await;

    assert_eq!(report.requests.ok, 6);
    assert_eq!(report.events.total, 6 * 25);
    assert_eq!(report.latency_us.event_gap.count, 6 * 24);
    assert_eq!(report.latency_us.event_gap.max, Some(0), "events of one chunk arrive together");
    assert_eq!(report.connections.opened, 2, "keep-alive: one connection per task");
}

#[tokio::test]
async fn failure_event_marks_the_stream_failed() {
    let sse = Sse { fail_last: true, ..Sse::events(3) };
    let server = serve(Reply::Sse(sse)).await;
    let report = run(&["sse", &server.url("/"), "-d", "{}", "-n", "4"]).await;

    assert_eq!(report.requests.ok, 0);
    assert_eq!(report.errors.stream_failed, 4);
    assert_eq!(report.events.total, 12, "events of failed streams still count");
    assert_eq!(report.latency_us.total.count, 0, "latency histograms hold successful requests only");
    assert_eq!(report.connections.opened, 1, "a failed stream was read to its end; the connection is kept");
}

#[tokio::test]
async fn failure_event_names_are_configurable() {
    let sse = Sse { fail_last: true, ..Sse::events(3) };
    let server = serve(Reply::Sse(sse)).await;
    let report = run(&["sse", &server.url("/"), "-d", "{}", "-n", "2", "--failure-event", "something.else"]).await;
    assert_eq!(report.requests.ok, 2);
}

#[tokio::test]
async fn expected_headers_are_checked_on_every_response() {
    let server = serve(Reply::Sse(Sse::events(2))).await;
    let report = run(&[
        "sse",
        &server.url("/"),
        "-d",
        "{}",
        "-c",
        "2",
        "-n",
        "8",
        "--expect-header",
        "x-request-id",
        "--expect-header",
        "x-request-id: req_",
        "--expect-header",
        "x-request-id: resp_",
        "--expect-header",
        "x-missing",
    ])
    .await;

    let checks: Vec<(String, Option<String>, u64, u64)> =
        report.expect_headers.iter().map(|h| (h.header.clone(), h.prefix.clone(), h.checked, h.violations)).collect();
    assert_eq!(
        checks,
        vec![
            ("x-request-id".to_owned(), None, 8, 0),
            ("x-request-id".to_owned(), Some("req_".to_owned()), 8, 0),
            ("x-request-id".to_owned(), Some("resp_".to_owned()), 8, 8),
            ("x-missing".to_owned(), None, 8, 8),
        ]
    );
    assert_eq!(report.requests.ok, 8, "a missing header is a violation, not a failed request");
}

#[tokio::test]
async fn a_server_without_keep_alive_gets_a_connection_per_request() {
    let server = serve_with(Reply::Sse(Sse::events(4)), false).await;
    let report = run(&["sse", &server.url("/"), "-d", "{}", "-c", "2", "-n", "10"]).await;
    assert_eq!(report.requests.ok, 10, "{:?}", report.errors);
    assert_eq!(report.events.total, 40);
    assert_eq!(report.connections.opened, 10);
    assert_eq!(report.latency_us.connect.count, 10);
}

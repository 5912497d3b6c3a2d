//! WebSocket mode: frames until a terminal `type`, connections reused, refused upgrades.

use crate::servers::ws::{Script, serve};
use crate::{assert_dominated, assert_ordered, run};

const BODY: &str = r#"{"type":"response.create","model":"gpt-5.4","input":[]}"#;

#[tokio::test]
async fn reads_frames_until_completed() {
    let server = serve(Script { deltas: 4, terminal: "response.completed", require_header: None }).await;
    let report = run(&[
        "ws",
        &server.ws_url("/v1/responses"),
        "-d",
        BODY,
        "-c",
        "2",
        "-n",
        "6",
        "--expect-header",
        "x-request-id",
    ])
    .await;

    assert_eq!(report.requests.ok, 6, "{:?}", report.errors);
    assert_eq!(report.events.total, 30);
    assert_eq!(report.connections.opened, 2, "one WebSocket per task, reused");
    assert_eq!(report.status.get("101"), Some(&2), "ws status counts are handshakes");
    assert_eq!(report.latency_us.event_gap.count, 6 * 4);
    assert_eq!(report.expect_headers[0].checked, 2);
    assert_eq!(report.expect_headers[0].violations, 0);
    assert_ordered("total", &report.latency_us.total);
    assert_dominated(&report.latency_us.first_event, &report.latency_us.total);
}

#[tokio::test]
async fn failed_and_error_terminals_are_stream_failures() {
    for terminal in ["response.failed", "error"] {
        let server = serve(Script { deltas: 1, terminal, require_header: None }).await;
        let report = run(&["ws", &server.ws_url("/"), "-d", BODY, "-n", "3"]).await;
        assert_eq!(report.errors.stream_failed, 3, "{terminal}");
        assert_eq!(report.connections.opened, 1, "{terminal}: the socket stays usable");
    }
}

#[tokio::test]
async fn headers_are_sent_on_the_upgrade() {
    let script = Script { deltas: 0, terminal: "response.completed", require_header: Some("authorization") };
    let server = serve(script).await;
    let refused = run(&["ws", &server.ws_url("/"), "-d", BODY, "-n", "2"]).await;
    assert_eq!(refused.errors.non_2xx, 2);
    assert_eq!(refused.status.get("401"), Some(&2));

    let accepted =
        run(&["ws", &server.ws_url("/"), "-d", BODY, "-n", "2", "-H", "Authorization: Bearer sk-test"]).await;
    assert_eq!(accepted.requests.ok, 2);
}

//! Error kinds: non-2xx, reset, connect refused, timeout, protocol.

use http::StatusCode;

use crate::run;
use crate::servers::http::{Reply, Sse, serve};
use crate::servers::raw::{self, Misbehaviour};

#[tokio::test]
async fn server_errors_are_non_2xx_and_keep_the_connection() {
    let server = serve(Reply::Status(StatusCode::INTERNAL_SERVER_ERROR)).await;
    let report = run(&["sse", &server.url("/"), "-d", "{}", "-c", "2", "-n", "10"]).await;

    assert_eq!(report.requests.ok, 0);
    assert_eq!(report.requests.failed, 10);
    assert_eq!(report.errors.non_2xx, 10);
    assert_eq!(report.errors.total, 10);
    assert_eq!(report.status.get("500"), Some(&10));
    assert_eq!(report.connections.opened, 2, "a drained error body leaves the connection reusable");
    assert_eq!(report.latency_us.ttfb.count, 0);
}

#[tokio::test]
async fn fail_flags_set_the_exit_code() {
    let server = serve(Reply::Status(StatusCode::SERVICE_UNAVAILABLE)).await;
    let config = loadgen::config_from_args(["loadgen", "json", &server.url("/"), "-n", "2", "--fail-on-non-2xx"])
        .expect("valid arguments");
    let report = loadgen::run(std::sync::Arc::new(config.clone())).await.expect("run");
    assert_eq!(report.exit_code(&config.output), loadgen::report::EXIT_FAILED_CHECK);

    let ok = serve(Reply::Json(10)).await;
    let config =
        loadgen::config_from_args(["loadgen", "json", &ok.url("/"), "-n", "2", "--fail-on-error", "--fail-on-non-2xx"])
            .expect("valid arguments");
    let report = loadgen::run(std::sync::Arc::new(config.clone())).await.expect("run");
    assert_eq!(report.exit_code(&config.output), 0);
}

#[tokio::test]
async fn a_reset_mid_stream_is_a_reset() {
    let server = raw::serve(Misbehaviour::ResetMidStream).await;
    let report = run(&["sse", &server.url("/"), "-d", "{}", "-c", "2", "-n", "5"]).await;
    assert_eq!(report.errors.reset, 5, "{:?}", report.errors);
    assert_eq!(report.requests.ok, 0);
    assert_eq!(report.connections.opened, 5, "a broken connection is replaced");
}

#[tokio::test]
async fn a_close_without_response_is_a_reset() {
    let server = raw::serve(Misbehaviour::CloseWithoutResponse).await;
    let report = run(&["json", &server.url("/"), "-n", "3"]).await;
    assert_eq!(report.errors.reset, 3, "{:?}", report.errors);
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_error() {
    let addr = raw::refused_addr().await;
    let report = run(&["sse", &format!("http://{addr}/"), "-d", "{}", "-c", "2", "-n", "4"]).await;
    assert_eq!(report.errors.connect, 4, "{:?}", report.errors);
    assert_eq!(report.connections.opened, 0);
    assert!(report.status.is_empty());
}

#[tokio::test]
async fn a_silent_server_times_out() {
    let server = raw::serve(Misbehaviour::Silent).await;
    let report = run(&["sse", &server.url("/"), "-d", "{}", "-c", "2", "-n", "2", "--timeout", "200ms"]).await;
    assert_eq!(report.errors.timeout, 2, "{:?}", report.errors);
    assert!(report.elapsed_s >= 0.2);
}

#[tokio::test]
async fn a_non_event_stream_is_a_protocol_error_in_sse_mode() {
    let server = serve(Reply::SseAsJson(Sse::events(2))).await;
    let report = run(&["sse", &server.url("/"), "-d", "{}", "-n", "3"]).await;
    assert_eq!(report.errors.protocol, 3);
    assert_eq!(report.events.total, 0, "a body that is not an event stream is not scanned");
}

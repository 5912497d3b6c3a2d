//! Idle-hold mode: streams opened, held, counted at the end.

use std::time::Duration;

use crate::run;
use crate::servers::http::{Reply, Sse, serve};

#[tokio::test]
async fn holds_endless_streams_and_writes_the_ready_file() {
    let endless = Sse { gap: Duration::from_millis(20), ..Sse::events(usize::MAX) };
    let server = serve(Reply::Sse(endless)).await;
    let dir = std::env::temp_dir().join(format!("loadgen-idle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ready = dir.join("ready.json");
    let ready_arg = ready.to_string_lossy().into_owned();
    let report = run(&[
        "idle",
        &server.url("/"),
        "-d",
        "{}",
        "--streams",
        "6",
        "--hold",
        "300ms",
        "--read-interval",
        "50ms",
        "--ready-file",
        &ready_arg,
        "--quiet",
    ])
    .await;

    let idle = report.idle.as_ref().expect("idle section");
    assert_eq!((idle.streams, idle.opened, idle.open_at_end, idle.ended_early, idle.failed), (6, 6, 6, 0, 0));
    assert!(idle.hold_s >= 0.3);
    assert_eq!(report.requests.ok, 6);
    assert_eq!(report.connections.opened, 6);
    assert_eq!(report.latency_us.ttfb.count, 6);
    let note: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&ready).expect("ready file written"))
        .expect("ready file is JSON");
    assert_eq!(note["opened"], 6);
    assert_eq!(note["failed"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn short_streams_end_early_and_failures_are_counted() {
    let server = serve(Reply::Sse(Sse::events(2))).await;
    let report =
        run(&["idle", &server.url("/"), "-d", "{}", "-c", "3", "--hold", "1s", "--read-interval", "10ms", "-q"]).await;
    let idle = report.idle.as_ref().expect("idle section");
    assert_eq!((idle.opened, idle.ended_early, idle.open_at_end), (3, 3, 0));
    assert_eq!(report.events.total, 6);

    let failing = serve(Reply::Status(http::StatusCode::TOO_MANY_REQUESTS)).await;
    let report = run(&["idle", &failing.url("/"), "-d", "{}", "-c", "2", "--hold", "50ms", "-q"]).await;
    let idle = report.idle.as_ref().expect("idle section");
    assert_eq!((idle.opened, idle.failed), (0, 2));
    assert_eq!(report.errors.non_2xx, 2);
}

#[tokio::test]
async fn idle_websockets_make_one_turn_each_then_stay_open() {
    use crate::servers::ws;
    let script = ws::Script { deltas: 2, terminal: "response.completed", require_header: None };
    let server = ws::serve(script).await;
    let body = r#"{"type":"response.create","model":"gpt-5.4","input":[]}"#;
    let report = run(&["idle", &server.ws_url("/"), "-d", body, "-c", "4", "--hold", "200ms", "-q"]).await;
    let idle = report.idle.as_ref().expect("idle section");
    assert_eq!((idle.streams, idle.opened, idle.open_at_end, idle.ended_early, idle.failed), (4, 4, 4, 0, 0));
    assert_eq!(report.requests.ok, 4, "one completed turn per socket: {:?}", report.errors);
    assert_eq!(report.connections.opened, 4);
    assert!(idle.hold_s >= 0.2);

    let failing = ws::serve(ws::Script { deltas: 0, terminal: "response.failed", require_header: None }).await;
    let report = run(&["idle", &failing.ws_url("/"), "-d", body, "-c", "2", "--hold", "50ms", "-q"]).await;
    let idle = report.idle.as_ref().expect("idle section");
    assert_eq!((idle.opened, idle.failed), (0, 2), "a turn that fails does not count as an open socket");
}

//! Duration and rate budgets.

use std::time::Duration;

use crate::run;
use crate::servers::http::{Reply, Sse, serve};

#[tokio::test]
async fn duration_mode_runs_for_the_duration() {
    let sse = Sse { gap: Duration::from_millis(5), ..Sse::events(3) };
    let server = serve(Reply::Sse(sse)).await;
    let report = run(&["sse", &server.url("/"), "-d", "{}", "-c", "2", "-z", "300ms"]).await;
    assert!(report.requests.ok > 0);
    assert_eq!(report.errors.total, 0);
    assert!(report.elapsed_s >= 0.3, "{}", report.elapsed_s);
    assert_eq!(report.target.requests, None);
    assert_eq!(report.target.duration_s, Some(0.3));
}

#[tokio::test]
async fn rate_spaces_request_starts() {
    let server = serve(Reply::Json(10)).await;
    let report = run(&["json", &server.url("/"), "-c", "4", "-n", "10", "--rate", "50"]).await;
    assert_eq!(report.requests.ok, 10);
    // Request i starts no earlier than i / 50 s: the tenth at 180 ms.
    assert!(report.elapsed_s >= 0.18, "{}", report.elapsed_s);
}

#[tokio::test]
async fn count_and_duration_stop_at_whichever_comes_first() {
    let server = serve(Reply::Json(10)).await;
    let report = run(&["json", &server.url("/"), "-n", "5", "-z", "30s"]).await;
    assert_eq!(report.requests.completed, 5);
}

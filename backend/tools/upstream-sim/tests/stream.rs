use std::time::Duration;

use crate::support::{codex_body, parse_sse, post_codex, sim_with_openai};

/// `stall_after=N`: the head and N events, then no byte and no close.
#[tokio::test]
async fn stall_after_sends_n_events_then_holds_the_stream_silent() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let mut response = post_codex(&sim, &tokens, &codex_body("sim: stall_after=3 events=5")).await;
    assert_eq!(response.status(), 200);
    let mut body = String::new();
    let read = async {
        while parse_sse(&body).len() < 3 || !body.ends_with("\n\n") {
            let chunk = response.chunk().await.expect("readable").expect("the stream is open");
            body.push_str(std::str::from_utf8(&chunk).expect("utf-8"));
        }
    };
    tokio::time::timeout(Duration::from_secs(5), read).await.expect("the first three events arrive");
    assert_eq!(parse_sse(&body).len(), 3);
    let silent = tokio::time::timeout(Duration::from_millis(300), response.chunk()).await;
    assert!(silent.is_err(), "nothing more arrives, not even the end of the body: {silent:?}");
    drop(response);
    sim.shutdown().await;
}

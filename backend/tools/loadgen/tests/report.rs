//! The JSON report's keys are stable: scripts depend on them.

use crate::run;
use crate::servers::http::{Reply, Sse, serve};

#[tokio::test]
async fn every_documented_key_is_present() {
    let server = serve(Reply::Sse(Sse::events(3))).await;
    let report = run(&[
        "sse",
        &server.url("/"),
        "-d",
        "{}",
        "-n",
        "3",
        "--label",
        "simulator",
        "--expect-header",
        "x-request-id",
    ])
    .await;
    let json = serde_json::to_value(&report).expect("serializable");

    let keys = |v: &serde_json::Value| -> Vec<String> {
        v.as_object().expect("an object").keys().cloned().collect::<Vec<_>>()
    };
    assert_eq!(
        keys(&json),
        [
            "schema",
            "tool",
            "version",
            "label",
            "mode",
            "target",
            "elapsed_s",
            "requests",
            "errors",
            "status",
            "bytes",
            "events",
            "connections",
            "latency_us",
            "expect_headers",
            "idle",
            "client"
        ]
    );
    assert_eq!(json["schema"], 1);
    assert_eq!(json["label"], "simulator");
    assert_eq!(json["mode"], "sse");
    assert_eq!(
        keys(&json["target"]),
        [
            "url",
            "method",
            "concurrency",
            "requests",
            "duration_s",
            "rate",
            "warmup",
            "timeout_s",
            "threads",
            "body_bytes"
        ]
    );
    assert_eq!(keys(&json["requests"]), ["completed", "ok", "failed", "ok_per_s", "completed_per_s"]);
    assert_eq!(keys(&json["errors"]), ["total", "connect", "reset", "timeout", "non_2xx", "protocol", "stream_failed"]);
    assert_eq!(keys(&json["bytes"]), ["total", "per_request", "per_s"]);
    assert_eq!(keys(&json["events"]), ["total", "per_request", "per_s"]);
    assert_eq!(keys(&json["connections"]), ["opened"]);
    assert_eq!(keys(&json["latency_us"]), ["connect", "ttfb", "first_event", "event_gap", "total"]);
    for histogram in ["connect", "ttfb", "first_event", "event_gap", "total"] {
        assert_eq!(
            keys(&json["latency_us"][histogram]),
            ["count", "min", "mean", "p50", "p90", "p99", "p99_9", "max"],
            "{histogram}"
        );
    }
    assert_eq!(json["latency_us"]["ttfb"]["count"], 3);
    assert_eq!(keys(&json["expect_headers"][0]), ["header", "prefix", "checked", "violations"]);
    assert_eq!(json["status"]["200"], 3);
    assert!(json["idle"].is_null());
    assert_eq!(keys(&json["client"]), ["cpu_s", "cpu_share", "cpu_per_request_us", "max_rss_kb"]);
    assert!(json["client"]["max_rss_kb"].as_u64().is_some_and(|kb| kb > 0), "read from /proc on Linux");
    let table = loadgen::table::render(&report);
    assert!(table.contains("first_event") && table.contains("simulator"), "{table}");
}

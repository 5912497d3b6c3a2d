//! `GET /metrics` after a scripted run: the counters equal the requests and outcomes made, the
//! pool gauges show the accounts, and a configured bearer token guards the endpoint.

use std::time::Duration;

use serde_json::json;
use test_support::{prometheus_sample, wait_until};
use upstream_sim::AccountSpec;

use super::make_sticky;
use crate::gateway::{Gateway, terminal_rows};

const TOKEN: &str = "metrics-token-0123456789";

async fn scrape(gateway: &Gateway) -> String {
    let response =
        gateway.client().get(format!("{}/metrics", gateway.url)).bearer_auth(TOKEN).send().await.expect("scrape");
    assert_eq!(response.status(), 200);
    response.text().await.expect("metrics text")
}

#[tokio::test]
async fn a_scrape_after_a_scripted_run_counts_exactly_the_requests_and_outcomes_made() {
    let gateway = Gateway::start_with(
        vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")],
        &[("SWITCHBOARD_METRICS_BEARER_TOKEN", TOKEN)],
    )
    .await;
    make_sticky(&gateway).await;
    gateway.sim.script("acct-a", "status=500", 1).expect("script");

    // Three answered requests (the first fails over from a 500), two refused before a model.
    for stream in [true, true, false] {
        let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": stream})).await;
        assert_eq!(response.status(), 200);
        response.bytes().await.expect("body");
    }
    let wrong_key = gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .bearer_auth("sk-not-a-key")
        .json(&json!({"model": "gpt-5.4", "input": "hi"}))
        .send()
        .await
        .expect("request");
    assert_eq!(wrong_key.status(), 401);
    let broken = gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .bearer_auth(&gateway.key)
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .expect("request");
    assert_eq!(broken.status(), 400);
    // Four more refused on the other routes, each before the engine saw it.
    let refused_elsewhere = [
        ("/v1/chat/completions", "sk-not-a-key", "{}".to_owned(), 401),
        ("/v1/chat/completions", gateway.key.as_str(), "{".to_owned(), 400),
        ("/v1/responses/compact", gateway.key.as_str(), json!({"model": "gpt-5.4", "stream": true}).to_string(), 400),
        ("/v1/zed/edit-predictions", gateway.key.as_str(), "{".to_owned(), 400),
    ];
    for (path, key, body, status) in refused_elsewhere {
        let response = gateway
            .client()
            .post(format!("{}{path}", gateway.url))
            .bearer_auth(key)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), status, "{path}");
    }

    // A stream's record ends just after its last byte: wait for all nine, then read once.
    let text = wait_until("nine requests counted", Duration::from_secs(10), || async {
        let text = scrape(&gateway).await;
        (prometheus_sample(&text, "switchboard_requests_total", &[]) >= 9.0).then_some(text)
    })
    .await
    .expect("counted");
    let count = |name: &str, labels: &[(&str, &str)]| prometheus_sample(&text, name, labels);
    assert_eq!(count("switchboard_requests_total", &[]), 9.0, "{text}");
    let served = [
        ("route", "responses.create"),
        ("model", "gpt-5.4"),
        ("provider", "openai"),
        ("status_class", "2xx"),
        ("outcome", "completed"),
    ];
    assert_eq!(count("switchboard_requests_total", &served), 3.0, "{text}");
    assert_eq!(count("switchboard_requests_total", &[("model", "none"), ("status_class", "4xx")]), 6.0);
    for (route, refused) in [("responses.create", 2.0), ("chat.completions", 2.0), ("responses.compact", 1.0)] {
        let labels = [("route", route), ("model", "none"), ("outcome", "failed")];
        assert_eq!(count("switchboard_requests_total", &labels), refused, "{route}: {text}");
    }
    assert_eq!(count("switchboard_requests_total", &[("route", "zed.edit_predictions"), ("status_class", "4xx")]), 1.0);
    assert_eq!(count("switchboard_upstream_attempts_total", &[("outcome", "ok")]), 3.0, "{text}");
    assert_eq!(count("switchboard_upstream_attempts_total", &[("outcome", "upstream_unavailable")]), 1.0);
    assert_eq!(count("switchboard_upstream_attempts_total", &[]), 4.0);
    assert_eq!(count("switchboard_failovers_total", &[("reason", "upstream_unavailable")]), 1.0);
    for histogram in [
        "switchboard_request_duration_seconds_count",
        "switchboard_time_to_first_byte_seconds_count",
        "switchboard_gateway_overhead_seconds_count",
    ] {
        assert_eq!(count(histogram, &[("provider", "openai")]), 3.0, "{histogram}: {text}");
    }
    assert_eq!(count("switchboard_accounts", &[("state", "normal")]), 2.0, "{text}");
    assert_eq!(count("switchboard_account_in_flight", &[]), 0.0);
    // No WebSocket in this run: the pool is declared, empty and never reused.
    assert!(text.contains("switchboard_websocket_pool_sockets{provider=\"openai\"} 0"), "{text}");
    assert_eq!(count("switchboard_websocket_pool_reuses_total", &[("provider", "openai")]), 0.0);
    // The same run as the request log holds it: one row per request that got a model.
    let rows = terminal_rows(&gateway.pool().await, 3).await;
    assert_eq!(rows.len(), 3);
    assert!(!text.contains(&gateway.key), "no key in the exposition");
    grafana_names_only_exported_metrics(&text);
}

/// `deploy/grafana/switchboard.json` parses and every metric it queries is one this scrape
/// declares (a histogram's `_bucket`/`_count`/`_sum` series belong to its name).
fn grafana_names_only_exported_metrics(text: &str) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../deploy/grafana/switchboard.json");
    let dashboard: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("dashboard file")).expect("dashboard JSON");
    let declared = test_support::prometheus_names(text);
    let mut checked = 0;
    for panel in dashboard["panels"].as_array().expect("panels") {
        for target in panel["targets"].as_array().expect("targets") {
            let expr = target["expr"].as_str().expect("expr");
            for word in expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if !word.starts_with("switchboard_") {
                    continue;
                }
                let name = ["_bucket", "_count", "_sum"]
                    .iter()
                    .find_map(|suffix| word.strip_suffix(suffix).filter(|base| declared.iter().any(|d| d == base)))
                    .unwrap_or(word);
                assert!(declared.iter().any(|d| d == name), "the dashboard queries {word}, which is not exported");
                checked += 1;
            }
        }
    }
    assert!(checked >= 14, "{checked} metric references checked");
}

#[tokio::test]
async fn the_metrics_endpoint_refuses_a_scrape_without_its_token() {
    let gateway =
        Gateway::start_with(vec![AccountSpec::openai("acct-a")], &[("SWITCHBOARD_METRICS_BEARER_TOKEN", TOKEN)]).await;
    let url = format!("{}/metrics", gateway.url);
    let anonymous = gateway.client().get(&url).send().await.expect("scrape");
    assert_eq!(anonymous.status(), 401);
    let wrong = gateway.client().get(&url).bearer_auth("metrics-token-wrong-0000").send().await.expect("scrape");
    assert_eq!(wrong.status(), 401);
    let body = wrong.text().await.expect("body");
    assert!(body.contains("invalid_metrics_token") && !body.contains(TOKEN), "{body}");
    assert!(scrape(&gateway).await.contains("# TYPE switchboard_accounts gauge"));
}

//! The admin API and the dashboard with the trace exporter (decision 0288): each request is its
//! own server span named by the matched route template (no ids), the dashboard's fallback by its
//! method alone.

use std::time::Duration;

use upstream_sim::AccountSpec;

use super::{Admin, gateway};
use crate::otlp_sink::{Collector, SERVER};

const WITHIN: Duration = Duration::from_secs(30);

#[tokio::test]
async fn admin_requests_are_server_spans_named_by_their_route_template() {
    let collector = Collector::start();
    let g =
        gateway(vec![AccountSpec::openai("acct-a")], &[("SWITCHBOARD_TRACING_OTLP_ENDPOINT", &collector.url)]).await;
    let admin = Admin::login(&g).await;
    let id = admin.ok("/accounts").await["items"][0]["id"].as_i64().expect("an account id");
    let account = admin.get(&format!("/accounts/{id}")).await;
    assert_eq!(account.status, 200, "{}", account.text);
    // A dashboard page: the fallback, no route template.
    g.client().get(format!("{}/accounts", g.url)).send().await.expect("dashboard");

    let login = collector.server_spans("POST /api/admin/auth/login", 1, WITHIN).await;
    assert_eq!(login[0].attributes.get("http.route").map(String::as_str), Some("/api/admin/auth/login"));
    assert_eq!(login[0].attributes.get("http.response.status_code").map(String::as_str), Some("200"));
    assert_eq!(login[0].parent, "", "its own trace: {:?}", login[0]);
    let read = collector.server_spans("GET /api/admin/accounts/{id}", 1, WITHIN).await;
    assert_eq!(read[0].attributes.get("http.route").map(String::as_str), Some("/api/admin/accounts/{id}"));
    assert_ne!(read[0].trace_id, login[0].trace_id, "one trace per request");
    let fallback = collector.server_spans("GET", 1, WITHIN).await;
    assert!(fallback.iter().all(|s| !s.attributes.contains_key("http.route")), "{fallback:?}");
    let servers: Vec<String> = collector.spans().into_iter().filter(|s| s.kind == SERVER).map(|s| s.name).collect();
    assert!(servers.iter().all(|name| !name.contains(&format!("/{id}"))), "no id in a span name: {servers:?}");
}

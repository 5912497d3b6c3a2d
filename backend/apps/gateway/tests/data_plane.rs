//! The data plane end to end: one real gateway process per test.

mod affinity;
mod alerts;
mod budgets;
mod circuit;
mod client_errors;
mod connections;
mod crash_recovery;
mod drain;
mod edge_faults;
mod egress_proxies;
mod egress_proxy_checks;
mod egress_proxy_logins;
mod failover;
mod grok;
mod grok_compaction;
mod grok_continuation;
mod grok_history;
mod grok_tools;
mod identity;
mod invariants;
mod metrics;
mod otlp;
mod outage;
mod prewarm;
mod provider_fallback;
mod records;
mod request_bodies;
mod request_faults;
mod server_spans;
mod trace_context;
mod transparency;
mod upstream_faults;
mod websocket_limits;

use serde_json::Value;

/// Splits an SSE body into (event name, data JSON) pairs.
pub fn events(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .filter_map(|frame| {
            let mut name = String::new();
            let mut data = String::new();
            for line in frame.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = n.to_owned();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data.push_str(d);
                }
            }
            serde_json::from_str(&data).ok().map(|v| (name, v))
        })
        .collect()
}

/// Waits until the gateway logged loading the current `config_revision`.
pub async fn wait_for_reload(gateway: &crate::gateway::Gateway) {
    let pool = gateway.pool().await;
    let revision: i64 =
        sqlx::query_scalar("SELECT config_revision FROM runtime_settings").fetch_one(&pool).await.expect("revision");
    test_support::wait_until("the gateway to reload the snapshot", std::time::Duration::from_secs(10), || async {
        gateway.log().contains(&format!("\"revision\":{revision}")).then_some(())
    })
    .await
    .expect("the gateway logs the reload");
}

/// The gateway's coordination store through the product's own adapter, with timeouts for a
/// loaded test machine.
pub fn coordination(gateway: &crate::gateway::Gateway) -> gateway_store::redis::RedisCoordination {
    let prefix = gateway.env_value("SWITCHBOARD_REDIS_KEY_PREFIX").expect("prefix");
    let mut settings = gateway_store::redis::RedisSettings::new(test_support::redis_url(), prefix);
    settings.connect_timeout = std::time::Duration::from_secs(10);
    settings.command_timeout = std::time::Duration::from_secs(10);
    gateway_store::redis::RedisCoordination::new(settings).expect("redis adapter")
}

/// Makes the runtime strategy `sticky` (the last used account; before any is used, the
/// heaviest, then the lowest id) through the command line, so the first account is tried first,
/// and waits for the gateway to reload.
pub async fn make_sticky(gateway: &crate::gateway::Gateway) {
    gateway.cli(&["settings", "set", "rotationStrategy=sticky"], None);
    wait_for_reload(gateway).await;
}

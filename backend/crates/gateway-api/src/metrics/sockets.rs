//! Upstream WebSocket pools at scrape time: sockets open, opened, and turns that found a live
//! socket to reuse.

use std::fmt::Write;
use std::sync::Arc;

use gateway_core::telemetry::SocketPoolSource;

pub fn render(out: &mut String, pools: &[(&'static str, Arc<dyn SocketPoolSource>)]) {
    let stats: Vec<_> = pools.iter().map(|(provider, pool)| (*provider, pool.socket_pool())).collect();
    let families = [
        ("switchboard_websocket_pool_sockets", "gauge", "Upstream WebSockets in the pool.", 0),
        ("switchboard_websocket_pool_opened_total", "counter", "Upstream WebSockets opened.", 1),
        ("switchboard_websocket_pool_reuses_total", "counter", "Turns that found a live pooled socket.", 2),
    ];
    for (name, kind, help, field) in families {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (provider, s) in &stats {
            let value = [s.open, s.opened, s.reused][field];
            let _ = writeln!(out, "{name}{{provider=\"{provider}\"}} {value}");
        }
    }
}

//! A simulator with one account, a client trusting its test CA, and the tiny local proxies of
//! `test_support::egress_proxy`.

pub use test_support::egress_proxy as proxy;

use std::time::Duration;

use gateway_transport::{Connector, HttpClient, TlsRoots};
use upstream_sim::{AccountSpec, SimConfig, SimHandle, Simulator, TokenSet};

pub async fn sim() -> (SimHandle, TokenSet) {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let sim = Simulator::start(SimConfig::default()).await.expect("simulator starts");
    let tokens = sim.add_account(AccountSpec::openai("acct").with_plan("pro")).expect("account");
    (sim, tokens)
}

pub fn connector(sim: &SimHandle) -> Connector {
    let roots = TlsRoots::only_pem(sim.ca_pem()).expect("the test CA parses");
    Connector::new(roots, Duration::from_secs(5))
}

pub fn client(sim: &SimHandle) -> HttpClient {
    HttpClient::new(connector(sim))
}

/// A Codex-style body with one user message.
pub fn codex_body(text: &str) -> serde_json::Value {
    serde_json::json!({
        "model": "gpt-5.4",
        "stream": true,
        "store": false,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}],
    })
}

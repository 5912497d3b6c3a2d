//! The account lifecycle end to end: import formats round-trip, OAuth logins (command line and
//! use cases), quota from traffic and probes steering selection, catalogs and the request
//! profile on a running gateway.

mod catalog;
mod import_exchange;
mod import_round_trip;
mod login;
mod oauth_flows;
mod quota;

use std::time::Duration;

use serde_json::json;

use crate::gateway::Gateway;

/// Sends requests until one succeeds (the gateway picks up new accounts on its next snapshot
/// poll); returns the simulator account that served it.
pub async fn served_by(gateway: &Gateway) -> String {
    let before = gateway.sim.requests().len();
    test_support::wait_until("a request through the gateway to succeed", Duration::from_secs(15), || async {
        let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
        if response.status() != 200 {
            return None;
        }
        response.bytes().await.ok()?;
        Some(())
    })
    .await
    .expect("the gateway serves the request");
    gateway.sim.requests()[before..]
        .iter()
        .rev()
        .find(|r| r.path.ends_with("/codex/responses"))
        .and_then(|r| r.account_id.clone())
        .expect("an upstream call")
}

/// The number of accounts stored.
pub async fn account_count(gateway: &Gateway) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM provider_accounts").fetch_one(&gateway.pool().await).await.expect("count")
}

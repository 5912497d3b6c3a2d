//! Session affinity through the real binary: requests of one session stay on one account of a
//! pool much larger than the candidates offered per acquire.

use serde_json::json;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

#[tokio::test]
async fn a_session_stays_on_its_account_in_a_large_pool() {
    let accounts = (0..12).map(|i| AccountSpec::openai(format!("acct-{i}"))).collect();
    let gateway = Gateway::start(accounts).await;
    let mut served = Vec::new();
    for _ in 0..8 {
        let response =
            gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "prompt_cache_key": "session-42"})).await;
        assert_eq!(response.status(), 200);
        response.bytes().await.expect("body");
        let last = gateway
            .sim
            .requests()
            .into_iter()
            .rev()
            .find(|r| r.path.ends_with("/codex/responses"))
            .and_then(|r| r.account_id)
            .expect("an upstream call");
        served.push(last);
    }
    served.dedup();
    assert_eq!(served.len(), 1, "one session, one account: {served:?}");
}

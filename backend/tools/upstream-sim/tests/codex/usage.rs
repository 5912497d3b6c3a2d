use serde_json::Value;
use upstream_sim::AccountPatch;

use crate::support::{client, sim_with_openai};

#[tokio::test]
async fn wham_usage_reflects_the_quota_state() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let patch =
        AccountPatch { primary_used_percent: Some(42.0), secondary_used_percent: Some(7.0), ..Default::default() };
    sim.update_account("acct", patch).expect("account");
    let url = format!("{}/wham/usage", sim.chatgpt_base_url());
    let body: Value =
        client().get(&url).bearer_auth(&tokens.access_token).send().await.expect("request").json().await.expect("json");
    assert_eq!(body["plan_type"], "plus");
    assert_eq!(body["rate_limit"]["allowed"], true);
    assert_eq!(body["rate_limit"]["primary_window"]["used_percent"], 42);
    assert_eq!(body["rate_limit"]["primary_window"]["limit_window_seconds"], 18_000);
    assert_eq!(body["rate_limit"]["secondary_window"]["used_percent"], 7);
    assert_eq!(body["credits"]["has_credits"], false);

    sim.exhaust_quota("acct").expect("account");
    let body: Value =
        client().get(&url).bearer_auth(&tokens.access_token).send().await.expect("request").json().await.expect("json");
    assert_eq!(body["rate_limit"]["limit_reached"], true);
    sim.shutdown().await;
}

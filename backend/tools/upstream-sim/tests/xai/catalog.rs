use serde_json::Value;

use crate::support::{client, sim_with_xai};

#[tokio::test]
async fn models_and_billing() {
    let (sim, tokens) = sim_with_xai("supergrok").await;
    let get = |path: &str| {
        client()
            .get(format!("{}{path}", sim.xai_base_url()))
            .bearer_auth(&tokens.access_token)
            .header("x-xai-token-auth", "xai-grok-cli")
            .header("x-grok-client-version", "0.2.120")
            .send()
    };
    let models: Value = get("/models").await.expect("request").json().await.expect("json");
    assert_eq!(models["object"], "list");
    assert!(
        models["data"]
            .as_array()
            .expect("data")
            .iter()
            .any(|m| m["id"] == "grok-4.5" && m["maxCompletionTokens"].as_u64() > Some(0))
    );
    let billing: Value = get("/billing?format=credits").await.expect("request").json().await.expect("json");
    assert_eq!(billing["config"]["creditUsagePercent"], 0.0);
    assert!(billing["config"]["monthlyLimit"]["val"].as_u64().is_some());
    assert_eq!(billing["config"]["currentPeriod"]["type"], "USAGE_PERIOD_TYPE_MONTHLY");
    assert_eq!(billing["subscriptionTier"], "supergrok");
    sim.shutdown().await;
}

use serde_json::Value;

use crate::support::{client, sim_with_openai};

#[tokio::test]
async fn models_are_filtered_by_plan_with_etag_and_304() {
    let (sim, tokens) = sim_with_openai("free").await;
    let url = format!("{}/models?client_version=0.171.0", sim.codex_base_url());
    let response = client().get(&url).bearer_auth(&tokens.access_token).send().await.expect("request");
    assert_eq!(response.status(), 200);
    let etag = response.headers()["etag"].to_str().expect("etag").to_owned();
    assert!(response.headers().contains_key("x-codex-primary-used-percent"));
    let body: Value = response.json().await.expect("json");
    let slugs: Vec<&str> =
        body["models"].as_array().expect("models").iter().filter_map(|m| m["slug"].as_str()).collect();
    assert!(slugs.contains(&"gpt-5.1-codex-mini"));
    assert!(!slugs.contains(&"gpt-5.4"), "free plan has no gpt-5.4");
    let model = &body["models"][0];
    for field in [
        "display_name",
        "supported_reasoning_levels",
        "shell_type",
        "visibility",
        "supported_in_api",
        "priority",
        "base_instructions",
        "supports_reasoning_summaries",
        "support_verbosity",
        "truncation_policy",
        "supports_parallel_tool_calls",
        "experimental_supported_tools",
        "available_in_plans",
        "apply_patch_tool_type",
        "context_window",
    ] {
        assert!(model.get(field).is_some(), "ModelInfo lacks {field}");
    }
    // Realistic entries: the family's multi-line system prompt, per-model tool and context facts.
    for model in body["models"].as_array().expect("models") {
        let instructions = model["base_instructions"].as_str().expect("base_instructions");
        assert!(instructions.lines().count() > 5 && instructions.contains("apply_patch"), "{model}");
    }
    let cached = client()
        .get(&url)
        .bearer_auth(&tokens.access_token)
        .header("if-none-match", &etag)
        .send()
        .await
        .expect("request");
    assert_eq!(cached.status(), 304);

    let pro = sim.add_account(upstream_sim::AccountSpec::openai("pro").with_plan("pro")).expect("account");
    let body: Value =
        client().get(&url).bearer_auth(&pro.access_token).send().await.expect("request").json().await.expect("json");
    let models = body["models"].as_array().expect("models");
    let pro_only = models.iter().find(|m| m["slug"] == "gpt-5.4-pro").expect("gpt-5.4-pro");
    let general = models.iter().find(|m| m["slug"] == "gpt-5.2").expect("gpt-5.2");
    assert_eq!(
        (pro_only["context_window"].clone(), general["apply_patch_tool_type"].clone()),
        (400_000.into(), "function".into())
    );
    sim.shutdown().await;
}

//! The Codex ChatGPT-backend routes (`/backend-api/*`) and the pooled usage.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::wait_until;
use upstream_sim::{AccountPatch, AccountSpec};

use crate::gateway::Gateway;

async fn get(gateway: &Gateway, path: &str) -> (u16, Value) {
    let response =
        gateway.client().get(format!("{}{path}", gateway.url)).bearer_auth(&gateway.key).send().await.expect("sent");
    let status = response.status().as_u16();
    (status, response.json().await.expect("json"))
}

fn with_quota(id: &str, primary: f64, secondary: f64) -> AccountSpec {
    let mut spec = AccountSpec::openai(id);
    spec.quota.primary_used_percent = primary;
    spec.quota.secondary_used_percent = secondary;
    spec
}

#[tokio::test]
async fn codex_backend_responses_and_models_answer_like_the_chatgpt_backend() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let response = gateway
        .client()
        .post(format!("{}/backend-api/codex/responses", gateway.url))
        .bearer_auth(&gateway.key)
        .header("chatgpt-account-id", "whatever-the-client-has")
        .json(&json!({"model": "gpt-5.4", "input": "sim: text='via backend route'", "stream": true, "store": false}))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    let text = response.text().await.expect("body");
    assert!(text.contains("response.completed") && text.contains("via backend route"));

    for path in ["/backend-api/codex/models?client_version=0.171.0", "/v1/models?client_version=0.171.0"] {
        let (status, body) = get(&gateway, path).await;
        assert_eq!(status, 200, "{path}");
        let models = body["models"].as_array().unwrap_or_else(|| panic!("{path}: {body}"));
        let slugs: Vec<&str> = models.iter().filter_map(|m| m["slug"].as_str()).collect();
        assert!(slugs.contains(&"gpt-5.4"), "{path}: {slugs:?}");
        for model in models {
            for field in [
                "display_name",
                "supported_reasoning_levels",
                "shell_type",
                "visibility",
                "priority",
                "base_instructions",
                "truncation_policy",
                "experimental_supported_tools",
            ] {
                assert!(model.get(field).is_some(), "{path}: {field} missing in {model}");
            }
        }
    }
    let (status, plain) = get(&gateway, "/v1/models").await;
    assert_eq!((status, plain["object"].as_str()), (200, Some("list")), "without client_version: the OpenAI list");

    let (status, body) = get(&gateway, "/backend-api/wham/tasks/list").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "not_found");
}

/// The simulator's own catalog for a `plan` account, by slug (what Codex straight to the
/// backend reads).
async fn upstream_catalog(gateway: &Gateway, plan: &str) -> Vec<Value> {
    let tokens =
        gateway.sim.add_account(AccountSpec::openai(format!("direct-{plan}")).with_plan(plan)).expect("account");
    let body: Value = gateway
        .client()
        .get(format!("{}/models?client_version=0.171.0", gateway.sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .send()
        .await
        .expect("direct catalog")
        .json()
        .await
        .expect("json");
    body["models"].as_array().expect("models").clone()
}

#[tokio::test]
async fn the_codex_catalog_serves_the_upstreams_own_entries_and_neutral_ones_for_the_rest() {
    let gateway = crate::admin_api::gateway(
        vec![
            AccountSpec::openai("acct-plus").with_plan("plus"),
            AccountSpec::openai("acct-pro").with_plan("pro"),
            AccountSpec::xai("grok-a"),
        ],
        &[],
    )
    .await;
    let admin = crate::admin_api::Admin::login(&gateway).await;
    let changed = admin.patch("/settings", json!({"modelAliases": {"codex-fast": "gpt-5.4"}})).await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    let path = "/backend-api/codex/models?client_version=0.171.0";
    let served =
        wait_until("the synced catalogs and the alias in the Codex catalog", Duration::from_secs(20), || async {
            let (status, body) = get(&gateway, path).await;
            let models = body["models"].as_array()?.clone();
            let synced = models.iter().any(|m| m["slug"] == "gpt-5.4-pro" && m["base_instructions"] != "");
            (status == 200 && synced && models.iter().any(|m| m["slug"] == "codex-fast")).then_some(models)
        })
        .await
        .expect("the catalog");
    let upstream = upstream_catalog(&gateway, "pro").await;
    assert!(upstream.len() >= 6, "{upstream:?}");
    for entry in &upstream {
        let slug = entry["slug"].as_str().expect("slug");
        let ours = served.iter().find(|m| m["slug"] == slug).unwrap_or_else(|| panic!("{slug} is served"));
        assert_eq!(ours, entry, "{slug}: the upstream's entry, every field as sent");
    }
    let neutral = |slug: &str| {
        let model = served.iter().find(|m| m["slug"] == slug).unwrap_or_else(|| panic!("{slug} in {served:?}"));
        assert_eq!(model["base_instructions"], "", "{slug}: {model}");
        assert!(model.get("apply_patch_tool_type").is_none() && model.get("available_in_plans").is_none(), "{model}");
    };
    neutral("codex-fast");
    let grok: Vec<&str> = served.iter().filter_map(|m| m["slug"].as_str()).filter(|s| s.starts_with("grok")).collect();
    assert!(!grok.is_empty(), "the xAI models are listed: {served:?}");
    grok.iter().for_each(|slug| neutral(slug));
    let largest = upstream.iter().filter_map(|m| m["priority"].as_i64()).max().expect("priorities");
    let alias = served.iter().find(|m| m["slug"] == "codex-fast").expect("alias");
    assert!(alias["priority"].as_i64().is_some_and(|p| p > largest), "neutral entries after the upstream's: {alias}");

    let (_, v1) = get(&gateway, "/v1/models?client_version=0.171.0").await;
    assert_eq!(v1["models"].as_array(), Some(&served), "the same catalog on /v1/models?client_version=");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wham_usage_reports_the_pool_windows_aggregated_over_the_keys_accounts() {
    let gateway = Gateway::start_with(
        vec![with_quota("acct-a", 20.0, 10.0), with_quota("acct-b", 60.0, 30.0)],
        &[
            ("SWITCHBOARD_ENGINE_SNAPSHOT_RELOAD_SECONDS", "1"),
            ("SWITCHBOARD_PROVIDERS_QUOTA_PROBE_PERIOD_SECONDS", "1"),
        ],
    )
    .await;
    let pooled = |primary: i64, secondary: i64| {
        let gateway = &gateway;
        move || async move {
            let (status, body) = get(gateway, "/backend-api/wham/usage").await;
            let limits = &body["rate_limit"];
            (status == 200
                && limits["primary_window"]["used_percent"] == primary
                && limits["secondary_window"]["used_percent"] == secondary)
                .then_some(body)
        }
    };
    let body = wait_until("the pool's windows (means of 20/60 and 10/30)", Duration::from_secs(20), pooled(40, 20))
        .await
        .expect("pooled usage");
    let limits = &body["rate_limit"];
    assert_eq!((limits["allowed"].clone(), limits["limit_reached"].clone()), (json!(true), json!(false)));
    assert_eq!(limits["primary_window"]["limit_window_seconds"], 300 * 60);
    assert_eq!(limits["secondary_window"]["limit_window_seconds"], 10_080 * 60);
    assert!(limits["primary_window"]["reset_after_seconds"].as_i64().is_some_and(|s| s > 0 && s <= 300 * 60));
    assert!(body["plan_type"].is_string());

    // One account full: the pool can still serve (half its 5-hour capacity left on acct-a).
    gateway
        .sim
        .update_account("acct-b", AccountPatch { primary_used_percent: Some(100.0), ..Default::default() })
        .expect("patch");
    wait_until("acct-b full in the pool mean", Duration::from_secs(20), pooled(60, 20)).await.expect("pooled usage");
    let (_, body) = get(&gateway, "/backend-api/wham/usage").await;
    assert_eq!(body["rate_limit"]["limit_reached"], false);
    // Both full: the pool's limit is reached.
    gateway
        .sim
        .update_account("acct-a", AccountPatch { primary_used_percent: Some(100.0), ..Default::default() })
        .expect("patch");
    let body = wait_until("both full", Duration::from_secs(20), pooled(100, 20)).await.expect("pooled usage");
    assert_eq!(
        (body["rate_limit"]["allowed"].clone(), body["rate_limit"]["limit_reached"].clone()),
        (json!(false), json!(true))
    );
}

#[tokio::test]
async fn wham_usage_without_a_valid_key_is_401() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let response = gateway
        .client()
        .get(format!("{}/backend-api/wham/usage", gateway.url))
        .bearer_auth("nope")
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["code"], "invalid_api_key");
}

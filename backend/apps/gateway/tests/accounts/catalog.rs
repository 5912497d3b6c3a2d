//! Catalogs and the request profile on a running gateway: `/v1/models` follows the upstream
//! catalog of the accounts' plans; a new `x-models-etag` on a response triggers a resync; an
//! appcast moves the version every upstream call carries.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::wait_until;
use upstream_sim::{AccountSpec, SettingsPatch};

use crate::gateway::Gateway;

async fn listed_models(gateway: &Gateway) -> Vec<String> {
    let response = gateway
        .client()
        .get(format!("{}/v1/models", gateway.url))
        .bearer_auth(&gateway.key)
        .send()
        .await
        .expect("models");
    let body: Value = response.json().await.expect("json");
    body["data"].as_array().into_iter().flatten().filter_map(|m| m["id"].as_str().map(str::to_owned)).collect()
}

fn catalog_fetches(gateway: &Gateway) -> Vec<Option<String>> {
    gateway
        .sim
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/codex/models"))
        .map(|r| r.header("if-none-match").map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn the_upstream_catalog_is_listed_and_resynced_when_its_etag_changes() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-pro").with_plan("pro")]).await;
    wait_until("the pro catalog to be listed", Duration::from_secs(10), || async {
        listed_models(&gateway).await.contains(&"gpt-5.4-pro".to_owned()).then_some(())
    })
    .await
    .expect("the fetched catalog replaces the fallback");
    let models = listed_models(&gateway).await;
    assert!(!models.contains(&"gpt-5.1-codex-max".to_owned()), "fallback-only models are gone: {models:?}");

    let fetched = catalog_fetches(&gateway).len();
    gateway
        .sim
        .update_settings(SettingsPatch { models_etag: Some("\"sim-models-2\"".into()), ..SettingsPatch::default() });
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body");
    wait_until("a resync after the new entity tag", Duration::from_secs(10), || async {
        let fetches = catalog_fetches(&gateway);
        (fetches.len() > fetched && fetches[fetched..].contains(&Some("\"sim-models-1\"".to_owned()))).then_some(())
    })
    .await
    .expect("the catalog is fetched again, conditional on the old tag");
}

#[tokio::test]
async fn the_appcast_version_becomes_the_request_profile() {
    let sim_appcast = |gateway: &Gateway| format!("{}/appcast.xml", gateway.sim.base_url());
    // The simulator's address is known only once it runs: start, then restart with the setting.
    let mut gateway = Gateway::start(vec![AccountSpec::openai("acct-1")]).await;
    let appcast = sim_appcast(&gateway);
    gateway.restart_with(&[("SWITCHBOARD_PROVIDERS_OPENAI_APPCAST_URL", appcast.as_str())]).await;
    wait_until("requests to carry the appcast version", Duration::from_secs(10), || async {
        let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
        response.bytes().await.ok()?;
        let last = gateway.sim.requests().into_iter().rev().find(|r| r.path.ends_with("/codex/responses"))?;
        (last.header("version") == Some("26.311.21342")
            && last.header("user-agent").is_some_and(|ua| ua.starts_with("codex_cli_rs/26.311.21342")))
        .then_some(())
    })
    .await
    .expect("the profile follows the appcast");
}

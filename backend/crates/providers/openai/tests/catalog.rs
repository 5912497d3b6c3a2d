//! Per-account catalogs with entity tags, one cached catalog per plan, the embedded fallback,
//! and the resync an entity-tag change asks for.

use gateway_core::catalog::{CatalogBook, CatalogFetch, CatalogSource, sync_catalogs};
use gateway_core::provider::{ModelInfo, Provider};
use provider_openai::catalog::fallback_models;
use serde_json::Value;
use upstream_sim::AccountSpec;

use crate::support::World;

#[tokio::test]
async fn a_catalog_is_fetched_per_account_and_revalidated_with_its_etag() {
    let world = World::start().await;
    let (account, tokens) = world.account(AccountSpec::openai("acct-1").with_plan("plus")).await;
    let provider = world.provider();
    let snapshots = world.snapshots().await;
    let entry = snapshots.current().account(account).cloned().expect("entry");
    let CatalogFetch::Models { etag, models, entries } = provider.fetch_catalog(&entry, None).await.expect("fetch")
    else {
        panic!("first fetch returns the models");
    };
    assert_eq!(etag.as_deref(), Some("\"sim-models-1\""));
    let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["gpt-5.4", "gpt-5.3-codex", "gpt-5.2-codex", "gpt-5.2", "gpt-5.1-codex-mini"]);
    // Each model's entry as the upstream sent it.
    let slugs: Vec<&str> = entries.iter().map(|e| e.slug()).collect();
    assert_eq!(slugs, ids);
    let direct: Value = reqwest::Client::new()
        .get(format!("{}/models?client_version=0.171.0", world.sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .send()
        .await
        .expect("direct fetch")
        .json()
        .await
        .expect("json");
    for (kept, sent) in entries.iter().zip(direct["models"].as_array().expect("models")) {
        let kept: Value = serde_json::from_str(kept.json()).expect("kept JSON");
        assert_eq!(&kept, sent, "the entry is kept as the upstream sent it");
        assert!(kept["base_instructions"].as_str().is_some_and(|i| i.len() > 200), "{kept}");
        assert!(kept["apply_patch_tool_type"].is_string() && kept["available_in_plans"].is_array(), "{kept}");
    }
    let again = provider.fetch_catalog(&entry, etag.as_deref()).await.expect("revalidate");
    assert_eq!(again, CatalogFetch::NotModified);
    let request = world.sim.requests().into_iter().rev().find(|r| r.path.ends_with("/codex/models")).expect("fetch");
    assert_eq!(request.header("if-none-match"), Some("\"sim-models-1\""));
    assert_eq!(request.header("chatgpt-account-id"), Some("acct-1"));
}

#[tokio::test]
async fn catalogs_are_kept_per_plan_and_answer_the_hot_path() {
    let world = World::start().await;
    let (plus, _) = world.account(AccountSpec::openai("acct-plus").with_plan("plus")).await;
    let (pro, _) = world.account(AccountSpec::openai("acct-pro").with_plan("pro")).await;
    let provider = world.provider();
    let snapshots = world.snapshots().await;
    let snapshot = snapshots.current();
    let (plus, pro) = (snapshot.account(plus).expect("plus"), snapshot.account(pro).expect("pro"));
    // Before any fetch: the embedded fallback, without upstream entries.
    assert!(provider.supports_model(plus, "gpt-5.1-codex-max"));
    assert!(provider.catalog_entry(plus, "gpt-5.1-codex-max").is_none());
    assert!(!provider.supports_model(pro, "gpt-5.4-pro"));

    let report = sync_catalogs(provider.catalog(), &provider, &snapshot).await;
    assert_eq!(report.updated, ["plus", "pro"]);
    assert!(provider.supports_model(pro, "gpt-5.4-pro"));
    assert!(!provider.supports_model(plus, "gpt-5.4-pro"), "pro-only model");
    assert!(!provider.supports_model(plus, "gpt-5.1-codex-max"), "not served upstream any more");
    assert!(provider.supports_model(plus, "gpt-5.4"));
    let union: Vec<String> = provider.catalog().union().into_iter().map(|m| m.id).collect();
    assert!(union.contains(&"gpt-5.4-pro".to_owned()) && union.contains(&"gpt-5.2".to_owned()));
    assert_eq!(provider.models(pro).len(), 6);
    // The upstream entries ride along, per plan; the fallback had none.
    let pro_entry = provider.catalog_entry(pro, "gpt-5.4-pro").expect("pro's entry");
    assert_eq!(pro_entry.entry.slug(), "gpt-5.4-pro");
    assert!(pro_entry.entry.json().contains("\"context_window\":400000"), "{:?}", pro_entry.entry.json());
    assert!(provider.catalog_entry(plus, "gpt-5.4-pro").is_none(), "not in plus's catalog");
    assert!(provider.catalog_entry(plus, "gpt-5.4").is_some());

    // Unchanged upstream: a revalidation, no new install.
    let report = sync_catalogs(provider.catalog(), &provider, &snapshot).await;
    assert_eq!((report.updated.len(), report.unchanged.len()), (0, 2));
}

#[test]
fn a_changed_entity_tag_asks_for_a_resync_once() {
    let book = CatalogBook::new(fallback_models());
    assert!(book.supports("unknown", "gpt-5.4"), "fallback for unknown plans");
    book.observe_etag("plus", "\"v2\"");
    assert!(!book.take_resync(), "no catalog of that plan yet: nothing to compare");
    book.install(
        "plus",
        Some("\"v1\"".into()),
        vec![ModelInfo { id: "gpt-5.4".into(), owned_by: "openai" }],
        Vec::new(),
    );
    book.observe_etag("plus", "\"v1\"");
    assert!(!book.take_resync());
    book.observe_etag("plus", "\"v2\"");
    book.observe_etag("plus", "\"v2\"");
    assert!(book.take_resync());
    assert!(!book.take_resync(), "one request per change");
    assert!(!book.supports("plus", "gpt-5.2"));
}

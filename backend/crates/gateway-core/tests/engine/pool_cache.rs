//! Candidate pools live in the engine, keyed by (snapshot generation, scope, provider, model,
//! catalog generation): the frozen snapshot holds no cache, and a pool admitted with the live
//! catalog follows that catalog without waiting for the next reload.

use std::sync::Arc;

use gateway_core::domain::{AccountId, ProviderKind, RotationStrategy};
use gateway_core::engine::pool_cache::PoolCache;
use gateway_core::provider::Provider;
use gateway_core::snapshot::RuntimeSnapshot;

use super::support::provider::ScriptedProvider;
use super::support::world::{Answer, JSON, World};
use crate::fixtures;

#[tokio::test(start_paused = true)]
async fn a_model_dropped_from_the_live_catalog_leaves_the_pool_before_the_next_reload() {
    let world =
        World::with(&[1, 2], &[], |setup| setup.facts.settings.rotation_strategy = RotationStrategy::RoundRobin);
    for _ in 0..2 {
        world.openai.then_answer();
        let answer = Answer::of(world.send(JSON).await);
        world.settled(answer.id()).await;
    }
    let mut before = world.called(ProviderKind::Openai);
    before.sort();
    assert_eq!(before, [AccountId(1), AccountId(2)], "round robin used both accounts");

    world.openai.drop_model(AccountId(1), "gpt-test");
    for _ in 0..4 {
        world.openai.then_answer();
        let answer = Answer::of(world.send(JSON).await);
        assert!(answer.error().is_none());
        world.settled(answer.id()).await;
    }
    let after = &world.called(ProviderKind::Openai)[2..];
    assert_eq!(after, [AccountId(2); 4], "the account that lost the model is no candidate any more");
    world.stop().await;
}

fn two_accounts() -> RuntimeSnapshot {
    let accounts = vec![fixtures::account(1, ProviderKind::Openai), fixtures::account(2, ProviderKind::Openai)];
    let key = fixtures::key(1, "sk-pool", gateway_core::domain::KeyScope::AllAccounts);
    RuntimeSnapshot::build(fixtures::facts(accounts, Vec::new(), vec![key]))
}

#[test]
fn a_pool_is_built_once_per_snapshot_scope_provider_model_and_catalog() {
    let cache = PoolCache::default();
    let provider = ScriptedProvider::new(ProviderKind::Openai);
    let snapshot = two_accounts();
    let scope = &snapshot.key(&gateway_core::domain::ClientKeyHash::of("sk-pool")).expect("key").scope;
    let first = cache.pool(&snapshot, scope, provider.as_ref(), "gpt-test");
    assert!(Arc::ptr_eq(&first, &cache.pool(&snapshot, scope, provider.as_ref(), "gpt-test")));
    assert!(!Arc::ptr_eq(&first, &cache.pool(&snapshot, scope, provider.as_ref(), "gpt-other")));

    provider.drop_model(AccountId(1), "gpt-test");
    let changed = cache.pool(&snapshot, scope, provider.as_ref(), "gpt-test");
    assert!(!Arc::ptr_eq(&first, &changed), "a new catalog generation builds a new pool");
    assert_eq!(changed.len(), 1);

    let reloaded = two_accounts();
    let scope = &reloaded.key(&gateway_core::domain::ClientKeyHash::of("sk-pool")).expect("key").scope;
    let fresh = cache.pool(&reloaded, scope, provider.as_ref(), "gpt-test");
    assert!(!Arc::ptr_eq(&changed, &fresh), "a new snapshot builds its own pools");
    assert_eq!(provider.catalog_generation(), 1);
}

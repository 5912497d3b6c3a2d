//! The key's `service_tier` policy (decision 0265): `allow` passes the client's tier, `deny`
//! refuses a non-default tier before anything is recorded or sent, `force_priority` sends
//! `priority` and the request is recorded and priced at that tier.

use gateway_core::accounting::PriceTable;
use gateway_core::domain::{AccountId, NanoUsd, ServiceTierPolicy, TokenUsage};
use serde_json::Value;

use super::support::world::{Answer, World, tier_policy};

const FLEX: &str = r#"{"model":"gpt-test","input":"hi","service_tier":"flex"}"#;

fn sent_tier(world: &World) -> Option<String> {
    let calls = world.openai.calls();
    assert_eq!(calls.len(), 1, "one upstream call");
    let body: Value = serde_json::from_slice(&calls[0].body).expect("the engine hands over JSON");
    body.get("service_tier").and_then(Value::as_str).map(str::to_owned)
}

/// The cost and tier of the request's terminal update.
async fn recorded(world: &World, answer: &Answer) -> (Option<NanoUsd>, Option<String>) {
    let Answer::Json { status, body, id } = answer else { panic!("JSON") };
    assert_eq!(*status, 200, "{body}");
    let row = world.settled(id.expect("recorded")).await;
    let last = row.updates.last().expect("a terminal update");
    (last.outcome.cost, last.outcome.service_tier.clone())
}

fn scripted_cost(tier: Option<&str>) -> NanoUsd {
    // The scripted `response.completed` reports 3 input and 2 output tokens.
    let usage =
        TokenUsage { input_tokens: 3, cached_input_tokens: 0, output_tokens: 2, reasoning_tokens: 0, total_tokens: 5 };
    PriceTable::default().cost("gpt-test", tier, &usage)
}

#[tokio::test(start_paused = true)]
async fn allow_passes_the_clients_tier_through_byte_for_byte() {
    let world = World::with(&[1], &[], tier_policy(ServiceTierPolicy::Allow));
    world.openai.then_answer();
    let answer = Answer::of(world.send(FLEX).await);
    assert_eq!(world.openai.calls()[0].body.as_ref(), FLEX.as_bytes());
    assert_eq!(sent_tier(&world).as_deref(), Some("flex"));
    // The scripted upstream names no tier: nothing is assumed.
    assert_eq!(recorded(&world, &answer).await, (Some(scripted_cost(None)), None));
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn deny_refuses_a_non_default_tier_with_400_before_anything_is_sent_or_recorded() {
    let world = World::with(&[1], &[], tier_policy(ServiceTierPolicy::Deny));
    for body in [
        FLEX,
        r#"{"model":"gpt-test","input":"hi","service_tier":"priority"}"#,
        r#"{"model":"gpt-test","input":"hi","service_tier":"scale"}"#,
        r#"{"model":"gpt-test","input":"hi","service_tier":7}"#,
    ] {
        let answer = Answer::of(world.send(body).await);
        let Answer::Json { status, body: error, id } = &answer else { panic!("JSON") };
        assert_eq!(*status, 400, "{error}");
        assert_eq!(error["error"]["type"], "invalid_request_error");
        assert_eq!(error["error"]["param"], "service_tier");
        assert!(error["error"]["message"].as_str().is_some_and(|m| m.contains("service_tier")), "{error}");
        assert!(id.is_none(), "refused before a record exists");
    }
    assert_eq!(world.all_calls(), 0, "nothing reached upstream");
    assert!(world.log.rows().is_empty(), "nothing recorded");
    assert!(world.coordination.acquires().is_empty(), "no account was taken");
    assert_eq!(world.coordination.cooldown_left(AccountId(1)), None, "the account is not penalised");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn deny_lets_absent_auto_and_default_tiers_through() {
    let world = World::with(&[1], &[], tier_policy(ServiceTierPolicy::Deny));
    for body in [
        r#"{"model":"gpt-test","input":"hi"}"#,
        r#"{"model":"gpt-test","input":"hi","service_tier":null}"#,
        r#"{"model":"gpt-test","input":"hi","service_tier":"auto"}"#,
        r#"{"model":"gpt-test","input":"hi","service_tier":"default"}"#,
    ] {
        world.openai.then_answer();
        let answer = Answer::of(world.send(body).await);
        let Answer::Json { status, body: reply, .. } = &answer else { panic!("JSON") };
        assert_eq!(*status, 200, "{body}: {reply}");
    }
    assert_eq!(world.openai.calls().len(), 4);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn force_priority_sends_priority_whatever_the_client_sent_and_prices_it() {
    let world = World::with(&[1], &[], tier_policy(ServiceTierPolicy::ForcePriority));
    for body in
        [FLEX, r#"{"model":"gpt-test","input":"hi"}"#, r#"{"model":"gpt-test","service_tier":"priority","input":"hi"}"#]
    {
        world.openai.then_answer();
        let answer = Answer::of(world.send(body).await);
        let calls = world.openai.calls();
        let sent: Value = serde_json::from_slice(&calls.last().expect("a call").body).expect("JSON");
        assert_eq!(sent["service_tier"], "priority", "{body} -> {sent}");
        assert_eq!(sent["input"], "hi", "the rest of the body is kept");
        let (cost, tier) = recorded(&world, &answer).await;
        assert_eq!(tier.as_deref(), Some("priority"));
        assert_eq!(cost, Some(scripted_cost(Some("priority"))));
        assert_eq!(scripted_cost(Some("priority")).0, 2 * scripted_cost(None).0, "priority costs double");
    }
    world.stop().await;
}

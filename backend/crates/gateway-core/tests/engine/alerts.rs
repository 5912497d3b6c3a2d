//! The alerts the engine raises: a deactivated account (once per failure, on the failure path
//! only) and a request that no account of its key's pool could take.

use gateway_core::alerts::{AlertKind, alert_queue};
use gateway_core::domain::{ProviderKind, SendState};
use gateway_core::fault::Fault;

use super::support::world::{Answer, JSON, World};

#[tokio::test(start_paused = true)]
async fn a_deactivated_account_raises_account_banned_and_the_request_moves_on() {
    let (sink, mut alerts) = alert_queue(8);
    let world = World::with(&[1, 2, 3], &[], |setup| setup.alerts = sink.clone());
    let deactivated = Fault::AccountDeactivated;
    world.openai.then_fail(deactivated, SendState::NotSent, Some(403)).then_answer();
    assert_eq!(Answer::of(world.send(JSON).await).error(), None, "served by the other account");
    let alert = alerts.receiver.try_recv().expect("one alert");
    assert_eq!(alert.kind, AlertKind::AccountBanned);
    assert_eq!(alert.provider, Some(ProviderKind::Openai));
    assert_eq!(alert.account_id, Some(world.called(ProviderKind::Openai)[0]));
    assert_eq!(alert.reason, "account_deactivated");
    assert!(alerts.receiver.try_recv().is_err(), "nothing else");

    // A forbidden account (not deactivated) and a plain answer raise nothing.
    let forbidden = Fault::AccountUnusable;
    world.openai.then_fail(forbidden, SendState::NotSent, Some(403)).then_answer();
    assert_eq!(Answer::of(world.send(JSON).await).error(), None);
    assert!(alerts.receiver.try_recv().is_err());
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_pool_that_cannot_take_a_request_raises_pool_empty_for_the_key() {
    let (sink, mut alerts) = alert_queue(8);
    let world = World::with(&[1], &[], |setup| {
        setup.alerts = sink.clone();
        setup.facts.settings.request_interval_ms = 10_000;
    });
    world.openai.then_answer();
    let first = Answer::of(world.send(JSON).await);
    world.settled(first.id()).await;
    assert!(alerts.receiver.try_recv().is_err(), "served: no alert");
    // The one account waits out its interval: nothing of the key's pool can take this one.
    assert_eq!(Answer::of(world.send(JSON).await).expect_error().1, "no_available_account");
    let alert = alerts.receiver.try_recv().expect("one alert");
    assert_eq!(alert.kind, AlertKind::PoolEmpty);
    assert!(alert.client_key_id.is_some() && alert.account_id.is_none());
    assert_eq!(world.all_calls(), 1);
    world.stop().await;
}

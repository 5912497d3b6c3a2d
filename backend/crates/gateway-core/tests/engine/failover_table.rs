//! The failover table (docs/architecture.md "Failures and failover"), one test per row, driven
//! through `Engine::handle`: what the client gets, which accounts are tried, what each account
//! is told and what the provider circuit hears.

use std::time::{Duration, Instant as StdInstant};

use gateway_core::coordination::{AccountFeedback, CircuitOutcome, ContinuationPin, PinScope};
use gateway_core::domain::{AccountId, ProviderKind, RequestStatus, SendState};
use gateway_core::fault::Fault;
use gateway_core::provider::{AttemptFailure, UpstreamRoute};
use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;

use super::support::provider::Step;
use super::support::world::{Answer, JSON, World};

const B: AccountId = AccountId(2);

/// The feedback the failed attempt left, as the next acquire (or the release) carried it.
fn feedback_for(world: &World, account: AccountId) -> Option<AccountFeedback> {
    let from_acquire = world
        .coordination
        .acquires()
        .into_iter()
        .filter_map(|a| a.replaces)
        .find(|r| r.lease.account == account)
        .and_then(|r| r.feedback);
    from_acquire.or_else(|| {
        world
            .coordination
            .releases()
            .into_iter()
            .find(|r| r.leases.account.map(|l| l.account) == Some(account))
            .and_then(|r| r.feedback)
    })
}

#[tokio::test(start_paused = true)]
async fn unauthorized_refreshes_once_and_retries_the_same_account() {
    let world = World::new(&[1, 2], &[]);
    world.openai.then_fail(Fault::UpstreamUnauthorized, SendState::Sent, Some(401)).then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let calls = world.called(ProviderKind::Openai);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0], calls[1], "the retry after the refresh runs on the same account");
    assert_eq!(world.openai.recovered(), [calls[0]]);
    assert_eq!(world.coordination.acquires().len(), 1, "the same slot serves the retry");
    world.settled(answer.id()).await;
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_second_unauthorized_cools_the_account_for_ten_minutes_and_moves_on() {
    let world = World::new(&[1, 2], &[]);
    world
        .openai
        .then_fail(Fault::UpstreamUnauthorized, SendState::Sent, Some(401))
        .then_fail(Fault::UpstreamUnauthorized, SendState::Sent, Some(401))
        .then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let calls = world.called(ProviderKind::Openai);
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0], calls[1]);
    assert_ne!(calls[2], calls[0]);
    assert_eq!(world.coordination.cooldown_left(calls[0]), Some(Duration::from_secs(600)));
    world.settled(answer.id()).await;
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_refused_refresh_cools_the_account_for_ten_minutes_and_moves_on() {
    let world = World::new(&[1, 2], &[]);
    world.openai.recoveries(&[false]);
    world.openai.then_fail(Fault::UpstreamUnauthorized, SendState::Sent, Some(401)).then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let calls = world.called(ProviderKind::Openai);
    assert_ne!(calls[0], calls[1]);
    assert_eq!(world.coordination.cooldown_left(calls[0]), Some(Duration::from_secs(600)));
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn rate_limited_cools_the_account_until_the_reset_and_moves_on() {
    let world = World::new(&[1, 2], &[]);
    let reset = OffsetDateTime::now_utc() + time::Duration::seconds(120);
    let limited = AttemptFailure::new(Fault::UsageLimitReached, SendState::Sent, "scripted").until(Some(reset));
    world.openai.then_fail_with(limited.with_status(429)).then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let first = world.called(ProviderKind::Openai)[0];
    let Some(AccountFeedback::Cooldown { duration, fault }) = feedback_for(&world, first) else { panic!("a cooldown") };
    assert_eq!(fault, Fault::UsageLimitReached);
    assert!(duration > Duration::from_secs(119) && duration <= Duration::from_secs(120), "{duration:?}");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn rate_limited_without_a_deadline_cools_the_account_for_thirty_seconds() {
    let world = World::new(&[1, 2], &[]);
    world.openai.then_fail(Fault::RateLimitedWithoutDeadline, SendState::Sent, Some(429)).then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let first = world.called(ProviderKind::Openai)[0];
    assert_eq!(world.coordination.cooldown_left(first), Some(Duration::from_secs(30)));
    // The next request skips the cooling account.
    world.openai.then_answer();
    let next = Answer::of(world.send(JSON).await);
    assert!(next.error().is_none());
    assert_ne!(*world.called(ProviderKind::Openai).last().expect("as scripted"), first);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn model_not_supported_excludes_the_account_for_that_model_for_an_hour() {
    let world = World::new(&[1, 2], &[]);
    world.openai.then_fail(Fault::ModelNotSupported, SendState::Sent, Some(400)).then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let first = world.called(ProviderKind::Openai)[0];
    assert_eq!(world.coordination.exclusion_left(first, "gpt-test"), Some(Duration::from_secs(3600)));
    assert_eq!(world.coordination.cooldown_left(first), None, "the account itself is not cooled down");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn an_unusable_account_cools_down_for_thirty_minutes_and_moves_on() {
    let world = World::new(&[1, 2], &[]);
    world.openai.then_fail(Fault::AccountDeactivated, SendState::Sent, Some(403)).then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let first = world.called(ProviderKind::Openai)[0];
    assert_eq!(world.coordination.cooldown_left(first), Some(Duration::from_secs(1800)));
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn server_errors_and_connect_failures_move_on_without_blaming_the_account() {
    let world = World::new(&[1, 2, 3], &[]);
    world
        .openai
        .then_fail(Fault::UpstreamUnavailable, SendState::Sent, Some(503))
        .then_fail(Fault::UpstreamConnectFailed, SendState::NotSent, None)
        .then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let replaced: Vec<_> = world.coordination.acquires().into_iter().filter_map(|a| a.replaces).collect();
    assert_eq!(replaced.len(), 2);
    for attempt in &replaced {
        assert_eq!(attempt.feedback, None, "no account is cooled down for an infrastructure failure");
        assert_eq!(attempt.circuit.and_then(|c| c.outcome), Some(CircuitOutcome::Failure));
        assert_eq!(world.coordination.cooldown_left(attempt.lease.account), None);
    }
    world.settled(answer.id()).await;
    let release = world.coordination.releases().pop().expect("as scripted");
    assert_eq!(release.circuit.and_then(|c| c.outcome), Some(CircuitOutcome::Success));
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_failed_egress_proxy_moves_on_blaming_neither_the_account_nor_the_upstream() {
    let world = World::new(&[1, 2, 3], &[]);
    world
        .openai
        .then_fail(Fault::EgressProxyFailed, SendState::NotSent, None)
        .then_fail(Fault::EgressProxyFailed, SendState::NotSent, None)
        .then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let replaced: Vec<_> = world.coordination.acquires().into_iter().filter_map(|a| a.replaces).collect();
    assert_eq!(replaced.len(), 2);
    for attempt in &replaced {
        assert_eq!(attempt.feedback, None, "the proxy's failure cools no account");
        assert_eq!(attempt.circuit.and_then(|c| c.outcome), None, "and says nothing about the upstream");
        assert_eq!(world.coordination.cooldown_left(attempt.lease.account), None);
    }
    let row = world.settled(answer.id()).await;
    let codes: Vec<_> = row.attempts.iter().map(|a| a.outcome.as_str()).collect();
    assert_eq!(codes[..2], ["egress_proxy_failed", "egress_proxy_failed"], "{codes:?}");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn the_requests_own_fault_reaches_the_client_and_no_other_account_is_tried() {
    let world = World::new(&[1, 2], &[3]);
    let refused = ApiError::new(ErrorCode::InvalidRequest, "Unsupported parameter: 'foo'.");
    world.openai.then_fail_with(AttemptFailure::rejected(refused, SendState::Sent, "scripted").with_status(400));
    let answer = Answer::of(world.send(JSON).await);
    assert_eq!(answer.expect_error(), (400, "invalid_request".to_owned()));
    assert_eq!(world.all_calls(), 1);
    let row = world.settled(answer.id()).await;
    assert_eq!(row.status, RequestStatus::Failed);
    assert_eq!(world.coordination.releases()[0].feedback, None, "the account is not blamed");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_body_too_big_for_the_upstream_answers_413_request_too_large() {
    let world = World::new(&[1, 2], &[]);
    let refused = ApiError::new(ErrorCode::RequestTooLarge, "The request is too large for the upstream.");
    world.openai.then_fail_with(AttemptFailure::rejected(refused, SendState::NotSent, "scripted"));
    let answer = Answer::of(world.send(JSON).await);
    assert_eq!(answer.expect_error(), (413, "request_too_large".to_owned()));
    assert_eq!(world.all_calls(), 1);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn an_ambiguous_outcome_is_never_replayed_and_answers_504() {
    let world = World::new(&[1, 2], &[]);
    world.openai.then(Step::Hang);
    let started = tokio::time::Instant::now();
    let answer = Answer::of(world.send(JSON).await);
    assert_eq!(answer.expect_error(), (504, "upstream_timeout".to_owned()));
    assert_eq!(started.elapsed(), world.engine.settings.header_timeout, "bounded by the header timeout");
    assert_eq!(world.all_calls(), 1);
    assert_eq!(world.openai.calls()[0].header_timeout, world.engine.settings.header_timeout);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn running_out_of_local_connections_answers_503_gateway_overloaded() {
    let world = World::new(&[1, 2], &[]);
    world.openai.then_fail(Fault::GatewayOverloaded, SendState::NotSent, None);
    let answer = Answer::of(world.send(JSON).await);
    assert_eq!(answer.expect_error(), (503, "gateway_overloaded".to_owned()));
    assert_eq!(world.all_calls(), 1);
    world.settled(answer.id()).await;
    let release = world.coordination.releases().pop().expect("as scripted");
    assert_eq!(release.feedback, None);
    assert_eq!(release.circuit.and_then(|c| c.outcome), None, "the gateway's own exhaustion says nothing");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn lost_continuation_state_answers_previous_response_not_found() {
    let world = World::new(&[1, 2], &[]);
    world.openai.then_fail(Fault::PreviousResponseNotFound, SendState::Sent, Some(400));
    let answer = Answer::of(world.send(JSON).await);
    assert_eq!(answer.expect_error(), (400, "previous_response_not_found".to_owned()));
    assert_eq!(world.all_calls(), 1);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn an_open_circuit_answers_503_before_any_account_is_chosen() {
    let world = World::new(&[1, 2], &[]);
    world.coordination.open_circuit(ProviderKind::Openai, Duration::from_secs(30));
    let answer = Answer::of(world.send(JSON).await);
    assert_eq!(answer.expect_error(), (503, "upstream_unavailable".to_owned()));
    assert_eq!(world.all_calls(), 0);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn an_account_inside_its_request_interval_is_waited_for() {
    let world = World::with(&[1], &[], |setup| setup.facts.settings.request_interval_ms = 2000);
    world.openai.then_answer().then_answer();
    let first = Answer::of(world.send(JSON).await);
    world.settled(first.id()).await;
    let started = tokio::time::Instant::now();
    let second = Answer::of(world.send(JSON).await);
    assert!(second.error().is_none());
    assert_eq!(started.elapsed(), Duration::from_secs(2));
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_request_interval_beyond_the_wait_budget_answers_no_available_account() {
    let world = World::with(&[1], &[], |setup| setup.facts.settings.request_interval_ms = 10_000);
    world.openai.then_answer();
    let first = Answer::of(world.send(JSON).await);
    world.settled(first.id()).await;
    let wall = StdInstant::now();
    let second = Answer::of(world.send(JSON).await);
    assert_eq!(second.expect_error(), (503, "no_available_account".to_owned()));
    assert!(wall.elapsed() < Duration::from_secs(2));
    assert_eq!(world.all_calls(), 1);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_continuation_runs_only_on_the_owner_and_never_fails_over() {
    let world = World::new(&[1, 2], &[]);
    let pin = ContinuationPin {
        client_key: gateway_core::domain::ClientKeyId(1),
        scope: PinScope::All,
        provider: ProviderKind::Openai,
        account: B,
        upstream_response_id: Some(b"resp_prev".to_vec()),
    };
    world.coordination.pin("resp_prev", pin);
    let body = r#"{"model":"gpt-test","previous_response_id":"resp_prev","input":"more"}"#;
    world.openai.then_answer();
    let answer = Answer::of(world.send(body).await);
    assert!(answer.error().is_none());
    let calls = world.openai.calls();
    assert_eq!(calls[0].account, B);
    assert!(matches!(&calls[0].route, UpstreamRoute::Continue { response_id, .. } if response_id == "resp_prev"));

    world.openai.then_fail(Fault::UpstreamUnavailable, SendState::Sent, Some(503));
    let failed = Answer::of(world.send(body).await);
    assert_eq!(failed.expect_error(), (400, "previous_response_not_found".to_owned()));
    assert_eq!(world.called(ProviderKind::Openai), [B, B], "no other account continues it");
    world.stop().await;
}

//! SPEC §3 invariants, each driven through `Engine::handle` over the in-process fakes.

use std::sync::atomic::Ordering;

use gateway_core::domain::{CredentialRevision, ProviderKind, RequestStatus, SendState};
use gateway_core::fault::Fault;
use gateway_core::provider::UpstreamRoute;

use super::support::provider::{Step, broken, created};
use super::support::world::{Answer, JSON, STREAM, World, drain, next_chunk};

const OPENAI: ProviderKind = ProviderKind::Openai;
const XAI: ProviderKind = ProviderKind::Xai;

#[tokio::test(start_paused = true)]
async fn invariant_1_one_row_per_request_with_its_attempts_in_the_json() {
    let world = World::new(&[1, 2, 3], &[]);
    world
        .openai
        .then_fail(Fault::UpstreamUnavailable, SendState::Sent, Some(503))
        .then_fail(Fault::UpstreamConnectFailed, SendState::NotSent, None)
        .then_answer();
    let Answer::Stream { id, body } = Answer::of(world.send(STREAM).await) else { panic!("a stream") };
    drain(body).await;
    let row = world.settled(id).await;
    assert_eq!(world.log.rows().len(), 1, "one row for one client request");
    assert_eq!(row.starts, 1);
    assert_eq!(row.start.requested_model, "gpt-test");
    assert_eq!(row.status, RequestStatus::Completed);
    let numbers: Vec<u32> = row.attempts.iter().map(|a| a.number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    let outcomes: Vec<&str> = row.attempts.iter().map(|a| a.outcome.as_str()).collect();
    assert_eq!(outcomes, ["upstream_unavailable", "upstream_connect_failed", "ok"]);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_2_every_call_is_enqueued_before_it_is_sent() {
    let world = World::new(&[1, 2], &[]);
    world.openai.then_fail(Fault::UpstreamConnectFailed, SendState::NotSent, None).then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let calls = world.openai.calls();
    // The start covers the first attempt; a progress update precedes the second.
    assert_eq!(calls.iter().map(|c| c.enqueued_before).collect::<Vec<_>>(), [1, 2]);
    let row = world.settled(answer.id()).await;
    let progress = &row.updates[0];
    assert_eq!(progress.status, RequestStatus::Running);
    assert_eq!(progress.attempts.as_ref().expect("the progress update carries the attempts").len(), 2);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_2_a_full_observation_queue_never_holds_back_the_send() {
    let world = World::with(&[1], &[], |setup| setup.queue_bytes = 1);
    world.openai.then_answer();
    let Answer::Stream { id, body } = Answer::of(world.send(STREAM).await) else { panic!("a stream") };
    assert!(drain(body).await.contains("response.completed"));
    world.eventually("the slot is released", || world.engine.held.is_empty()).await;
    assert!(world.log.row(id).is_none(), "nothing could be recorded");
    assert!(world.engine.observations.stats().dropped_full.load(Ordering::Relaxed) >= 1);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_3_a_later_unsent_attempt_never_lowers_the_watermark() {
    let world = World::new(&[1, 2], &[]);
    world.openai.then_fail(Fault::RateLimitedWithoutDeadline, SendState::Sent, Some(429)).then_fail(
        Fault::UpstreamConnectFailed,
        SendState::NotSent,
        None,
    );
    let answer = Answer::of(world.send(JSON).await);
    assert_eq!(answer.expect_error().0, 503);
    let row = world.settled(answer.id()).await;
    assert_eq!(row.send_state, SendState::Sent);
    let terminal = row.updates.last().expect("as scripted");
    assert_eq!(terminal.send_state, SendState::Sent, "the terminal write carries the raised watermark");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_3_an_ambiguous_attempt_is_never_replayed() {
    let world = World::new(&[1, 2], &[3]);
    world.openai.then_fail(Fault::UpstreamAmbiguous, SendState::Ambiguous, None);
    let answer = Answer::of(world.send(JSON).await);
    assert_eq!(answer.expect_error(), (504, "upstream_timeout".to_owned()));
    assert_eq!(world.all_calls(), 1, "neither another account nor another provider is tried");
    let row = world.settled(answer.id()).await;
    assert_eq!(row.send_state, SendState::Ambiguous);
    assert_eq!(row.status, RequestStatus::Failed);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_4_the_commit_is_observed_before_the_first_byte_is_handed_over() {
    let world = World::new(&[1], &[]);
    world.openai.then_answer();
    let Answer::Stream { id, mut body } = Answer::of(world.send(STREAM).await) else { panic!("a stream") };
    let stats = world.engine.observations.stats().clone();
    let before = stats.enqueued.load(Ordering::Relaxed);
    let first = next_chunk(&mut body).await.expect("a first chunk");
    assert!(std::str::from_utf8(&first).expect("as scripted").contains("response.created"));
    assert_eq!(stats.enqueued.load(Ordering::Relaxed), before + 1, "the commit was enqueued with the first byte");
    world.eventually("the commit reaches the row", || world.log.row(id).is_some_and(|r| !r.updates.is_empty())).await;
    let row = world.log.row(id).expect("as scripted");
    assert_eq!(row.status, RequestStatus::Running);
    assert!(row.downstream_committed_at.is_some());
    assert_eq!(row.client_response_id.as_deref(), Some(&b"resp_1"[..]));
    drain(body).await;
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_4_after_the_commit_there_is_no_retry_and_no_fallback() {
    let world = World::new(&[1, 2], &[3]);
    world.openai.then(Step::Answer(vec![created("resp_1"), broken("reset by peer")]));
    let Answer::Stream { id, body } = Answer::of(world.send(STREAM).await) else { panic!("a stream") };
    let text = drain(body).await;
    assert!(text.contains("event: error"), "the failure reaches the client as an error event: {text}");
    assert!(text.contains("stream_interrupted"));
    assert_eq!(world.all_calls(), 1);
    let row = world.settled(id).await;
    assert_eq!(row.status, RequestStatus::Incomplete);
    assert_eq!(row.error_code.as_deref(), Some("stream_interrupted"));
    assert!(row.downstream_committed_at.is_some());
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_4_a_stream_that_breaks_before_the_commit_gets_a_plain_error() {
    let world = World::new(&[1], &[]);
    world.openai.then(Step::Answer(vec![broken("reset before any event")]));
    let answer = Answer::of(world.send(STREAM).await);
    assert_eq!(answer.expect_error(), (502, "stream_interrupted".to_owned()));
    let row = world.settled(answer.id()).await;
    assert!(row.downstream_committed_at.is_none());
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_5_one_execute_uses_one_account_and_retries_nothing_itself() {
    let world = World::new(&[1, 2, 3], &[]);
    world
        .openai
        .then_fail(Fault::UpstreamConnectFailed, SendState::NotSent, None)
        .then_fail(Fault::ModelNotSupported, SendState::Sent, Some(400))
        .then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    assert_eq!(world.coordination.acquires().len(), 3, "one acquire per attempt");
    let calls = world.openai.calls();
    let row = world.settled(answer.id()).await;
    assert_eq!(row.attempts.len(), calls.len(), "every execute is one recorded attempt");
    for (call, attempt) in calls.iter().zip(&row.attempts) {
        assert_eq!(attempt.account, call.account);
        assert_eq!(attempt.number, call.attempt);
    }
    let mut accounts: Vec<_> = calls.iter().map(|c| c.account).collect();
    accounts.dedup();
    assert_eq!(accounts.len(), 3, "each attempt ran on its own account");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_6_accounts_are_switched_before_providers() {
    let world = World::new(&[1, 2], &[3]);
    world.openai.then_fail(Fault::UpstreamConnectFailed, SendState::NotSent, None).then_fail(
        Fault::UpstreamConnectFailed,
        SendState::NotSent,
        None,
    );
    world.xai.then_answer();
    let answer = Answer::of(world.send(JSON).await);
    assert!(answer.error().is_none());
    let mut openai = world.called(OPENAI);
    openai.sort();
    assert_eq!(openai, [gateway_core::domain::AccountId(1), gateway_core::domain::AccountId(2)]);
    assert_eq!(world.called(XAI), [gateway_core::domain::AccountId(3)]);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_6_the_next_provider_only_while_not_sent() {
    let world = World::new(&[1], &[3]);
    world.openai.then_fail(Fault::UpstreamUnavailable, SendState::Sent, Some(502));
    let answer = Answer::of(world.send(JSON).await);
    assert_eq!(answer.expect_error(), (503, "no_available_account".to_owned()));
    assert!(world.called(XAI).is_empty(), "a call that reached the upstream does not move to another provider");
    let row = world.settled(answer.id()).await;
    assert_eq!(row.send_state, SendState::Sent);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn invariant_7_identity_is_bound_explicitly_to_each_call() {
    let world = World::with(&[1, 2], &[], |setup| {
        setup.facts.accounts[1].credential_revision = CredentialRevision(5);
    });
    world.openai.then_fail(Fault::UpstreamConnectFailed, SendState::NotSent, None).then_fail(
        Fault::UpstreamConnectFailed,
        SendState::NotSent,
        None,
    );
    let _ = Answer::of(world.send(JSON).await);
    let acquires = world.coordination.acquires();
    let calls = world.openai.calls();
    assert_eq!(calls.len(), 2);
    // The second acquire hands back the first attempt's slot: each call used the account its
    // own grant named, with that account's own credential revision.
    let first = acquires[1].replaces.as_ref().expect("the failover acquire names the replaced slot");
    assert_eq!(first.lease.account, calls[0].account);
    for call in &calls {
        let expected = if call.account.0 == 2 { CredentialRevision(5) } else { CredentialRevision(1) };
        assert_eq!(call.credential_revision, expected);
        assert_eq!(call.route, UpstreamRoute::Http);
    }
    world.stop().await;
}

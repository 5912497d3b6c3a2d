//! The request chain of SPEC §3 phase by phase through `Engine::handle`: authentication and
//! decoding refuse before anything is recorded, admission, the non-stream answer, a client
//! that hangs up, the coordination store being down, and the slot kept alive while a stream
//! runs.

use gateway_core::domain::{ProviderKind, RequestOutcome, RequestStatus};

use super::support::provider::{Step, completed, created, delta};
use super::support::world::{Answer, JSON, STREAM, World, drain, limits, next_chunk};

#[tokio::test(start_paused = true)]
async fn an_unknown_key_is_refused_before_anything_is_recorded() {
    let world = World::new(&[1], &[]);
    let answer = Answer::of(world.send_with(JSON, Some("sk-wrong"), Vec::new()).await);
    assert_eq!(answer.expect_error(), (401, "invalid_api_key".to_owned()));
    let missing = Answer::of(world.send_with(JSON, None, Vec::new()).await);
    assert_eq!(missing.expect_error(), (401, "invalid_api_key".to_owned()));
    assert_eq!(world.engine.observations.stats().enqueued.load(std::sync::atomic::Ordering::Relaxed), 0);
    assert!(world.coordination.acquires().is_empty());
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_body_without_a_model_is_refused_before_anything_is_recorded() {
    let world = World::new(&[1], &[]);
    let answer = Answer::of(world.send(r#"{"input":"hi"}"#).await);
    assert_eq!(answer.expect_error(), (400, "invalid_request".to_owned()));
    let twice = Answer::of(world.send(r#"{"model":"a","model":"b"}"#).await);
    assert_eq!(twice.expect_error(), (400, "invalid_request".to_owned()));
    let broken = Answer::of(world.send("{").await);
    assert_eq!(broken.expect_error().0, 400);
    assert_eq!(world.all_calls(), 0);
    assert!(world.coordination.acquires().is_empty());
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_key_at_its_concurrency_limit_gets_429_and_its_row_says_so() {
    let world = World::with(&[1, 2], &[], limits(|l| l.max_concurrency = Some(1)));
    let (feed, receiver) = tokio::sync::mpsc::unbounded_channel();
    world.openai.then(Step::Feed(receiver));
    feed.send(created("resp_1")).expect("as scripted");
    let Answer::Stream { id: open, body } = Answer::of(world.send(STREAM).await) else { panic!("a stream") };
    let refused = Answer::of(world.send(JSON).await);
    assert_eq!(refused.expect_error(), (429, "concurrency_limit_exceeded".to_owned()));
    world.eventually("the refused row is terminal", || world.log.is_finished(refused.id())).await;
    let row = world.log.row(refused.id()).expect("as scripted");
    assert_eq!(row.status, RequestStatus::Failed);
    assert_eq!(row.error_code.as_deref(), Some("concurrency_limit_exceeded"));
    assert_eq!(world.all_calls(), 1);
    feed.send(completed("resp_1")).expect("as scripted");
    drop(feed);
    drain(body).await;
    world.settled(open).await;
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_non_stream_request_gets_the_aggregated_response() {
    let world = World::new(&[1], &[]);
    world.openai.then_answer();
    let answer = Answer::of(world.send(JSON).await);
    let Answer::Json { status, body, id } = &answer else { panic!("JSON") };
    assert_eq!(*status, 200, "{body}");
    assert_eq!(body["id"], "resp_1");
    assert_eq!(body["status"], "completed");
    let row = world.settled(id.expect("as scripted")).await;
    assert_eq!(row.status, RequestStatus::Completed);
    assert!(row.downstream_committed_at.is_some(), "committed at the terminal event");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_completed_stream_commits_and_finishes_with_its_outcome() {
    let world = World::new(&[1], &[]);
    world.openai.then_answer();
    let Answer::Stream { id, body } = Answer::of(world.send(STREAM).await) else { panic!("a stream") };
    drain(body).await;
    let row = world.settled(id).await;
    let (commit, terminal) = (row.updates.first().expect("a commit"), row.updates.last().expect("a terminal"));
    let committed =
        RequestOutcome { http_status: Some(200), ..RequestOutcome::default() }.with_response_id(Some("resp_1"));
    assert_eq!(commit.outcome, committed, "the commit records what the client is about to receive");
    assert_eq!(terminal.status, RequestStatus::Completed);
    let outcome = &terminal.outcome;
    assert_eq!((outcome.http_status, outcome.error_code.as_deref()), (Some(200), None));
    assert_eq!(outcome.usage.map(|u| (u.input_tokens, u.output_tokens, u.total_tokens)), Some((3, 2, 5)));
    assert_eq!(outcome.upstream_model.as_deref(), Some("gpt-test"));
    assert_eq!(outcome.client_response_id.as_deref(), Some(&b"resp_1"[..]));
    assert_eq!(outcome.upstream_response_id, outcome.client_response_id, "the upstream's id is passed through");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_client_that_hangs_up_leaves_a_cancelled_row_and_frees_the_slot() {
    let world = World::new(&[1], &[]);
    let (feed, receiver) = tokio::sync::mpsc::unbounded_channel();
    world.openai.then(Step::Feed(receiver));
    feed.send(created("resp_9")).expect("as scripted");
    let Answer::Stream { id, mut body } = Answer::of(world.send(STREAM).await) else { panic!("a stream") };
    next_chunk(&mut body).await.expect("the first chunk");
    drop(body);
    let row = world.settled(id).await;
    assert_eq!(row.status, RequestStatus::Cancelled);
    assert_eq!(row.error_code.as_deref(), Some("client_disconnected"));
    assert_eq!(row.http_status, Some(200), "the client had received the status line");
    assert_eq!(row.client_response_id.as_deref(), Some(&b"resp_9"[..]));
    assert_eq!(world.coordination.in_flight(gateway_core::domain::AccountId(1)), 0);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn an_unreachable_coordination_store_refuses_with_503() {
    let world = World::new(&[1], &[]);
    world.coordination.break_store();
    let answer = Answer::of(world.send(JSON).await);
    assert_eq!(answer.expect_error(), (503, "coordination_unavailable".to_owned()));
    assert_eq!(world.all_calls(), 0);
    let row = world.settled(answer.id()).await;
    assert_eq!(row.status, RequestStatus::Failed);
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_streaming_request_keeps_its_slot_renewed_until_it_ends() {
    let world = World::new(&[1], &[]);
    let (feed, receiver) = tokio::sync::mpsc::unbounded_channel();
    world.openai.then(Step::Feed(receiver));
    feed.send(created("resp_1")).expect("as scripted");
    let Answer::Stream { id, mut body } = Answer::of(world.send(STREAM).await) else { panic!("a stream") };
    next_chunk(&mut body).await.expect("as scripted");
    let ttl = world.engine.settings.lease_ttl;
    for _ in 0..3 {
        tokio::time::advance(ttl / 3).await;
        let outcome = world.engine.held.beat(world.coordination.as_ref(), ttl).await.expect("as scripted");
        assert_eq!(outcome.renewed, 1, "the open stream's slot is renewed");
        feed.send(delta("more")).expect("as scripted");
        next_chunk(&mut body).await.expect("as scripted");
    }
    feed.send(completed("resp_1")).expect("as scripted");
    drop(feed);
    drain(body).await;
    world.settled(id).await;
    let outcome = world.engine.held.beat(world.coordination.as_ref(), ttl).await.expect("as scripted");
    assert_eq!(outcome.renewed, 0, "a finished request holds nothing");
    assert_eq!(world.coordination.heartbeats().last().expect("as scripted").len(), 0);
    assert_eq!(world.called(ProviderKind::Openai).len(), 1);
    world.stop().await;
}

fn assert_send<T: Send>(_: &T) {}

#[tokio::test(start_paused = true)]
async fn the_request_future_and_its_stream_can_move_between_threads() {
    let world = World::new(&[1], &[]);
    world.openai.then_answer();
    let inbound = gateway_core::engine::InboundRequest {
        operation: gateway_core::provider::Operation::ResponsesCreate,
        transport: gateway_core::domain::Transport::Http,
        api_key: Some(super::support::world::KEY.to_owned()),
        headers: Vec::new(),
        body: bytes::Bytes::from_static(STREAM.as_bytes()),
        session: None,
    };
    let handling = world.engine.handle(inbound);
    // The HTTP layer runs both on a multi-threaded runtime (a compile-time check).
    assert_send(&handling);
    let Answer::Stream { body, .. } = Answer::of(handling.await) else { panic!("a stream") };
    assert_send(&body);
    drain(body).await;
    world.stop().await;
}

//! [`RequestLog`]: idempotent starts, monotone updates, batches, recovery and retention.

use gateway_core::domain::{
    AttemptOutcome, BootId, ClientKeyId, GroupId, GroupRef, LatencySplits, ModelRequestRecord, NanoUsd, ProviderKind,
    ReplicaName, RequestId, RequestOutcome, RequestStart, RequestStatus, RequestUpdate, RoutingSnapshot, Runner,
    SendState, TokenUsage, Transport,
};
use gateway_core::ports::{RequestLog, StorageErrorKind};
use time::Duration;

use crate::storage_contract::fixtures::{Harness, attempt, now};

fn start(started_at: time::OffsetDateTime, deadline: Duration) -> RequestStart {
    RequestStart {
        id: RequestId::new(),
        client_key_id: None,
        requested_model: "gpt-5".to_owned(),
        operation: "responses.create".to_owned(),
        transport: Transport::Http,
        stream: true,
        routing: RoutingSnapshot::All,
        started_at,
        deadline_at: started_at + deadline,
        runner: None,
    }
}

fn runner(name: &str, boot: u128) -> Runner {
    Runner { replica: ReplicaName::parse(name).expect("valid name"), boot: BootId(uuid::Uuid::from_u128(boot)) }
}

fn finished(id: RequestId, status: RequestStatus, send_state: SendState) -> RequestUpdate {
    let mut update = RequestUpdate::new(id, status, send_state);
    update.finished_at = Some(now());
    update
}

pub async fn starts_are_idempotent_and_tolerate_a_deleted_client_key(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let mut s = start(now(), Duration::minutes(5));
    s.client_key_id = Some(ClientKeyId(12345));
    s.routing = RoutingSnapshot::Groups(vec![GroupRef { id: GroupId(3), name: "team".to_owned() }]);
    assert_eq!(store.record_starts(&[s.clone(), s.clone()]).await?, 1);
    assert_eq!(store.record_starts(std::slice::from_ref(&s)).await?, 0);
    let stored = store.get_request(s.id).await?;
    assert_eq!(stored.start.client_key_id, None, "a dangling key reference is stored as NULL");
    assert_eq!(stored.start.routing, s.routing);
    assert_eq!(stored.status, RequestStatus::Running);
    assert_eq!(stored.send_state, SendState::NotSent);
    h.finish().await
}

pub async fn a_late_terminal_write_cannot_lower_the_send_state_watermark(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let s = start(now(), Duration::minutes(5));
    store.record_starts(std::slice::from_ref(&s)).await?;

    let progress = RequestUpdate::new(s.id, RequestStatus::Running, SendState::Sent);
    let mut terminal = finished(s.id, RequestStatus::Failed, SendState::NotSent);
    terminal.outcome.error_code = Some("upstream_reset".to_owned());
    terminal.outcome.usage = Some(TokenUsage { input_tokens: 10, total_tokens: 10, ..TokenUsage::default() });
    terminal.outcome.client_response_id = Some(b"resp_\xff\x00opaque".to_vec());
    assert_eq!(store.record_updates(&[progress, terminal]).await?, 1, "one row changed");
    let row = store.get_request(s.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Failed, SendState::Sent));
    assert_eq!(row.outcome.client_response_id.as_deref(), Some(&b"resp_\xff\x00opaque"[..]));
    assert_eq!(row.outcome.usage.map(|u| u.input_tokens), Some(10));

    // A late write may neither reopen the terminal row nor lower the watermark.
    let late = [
        RequestUpdate::new(s.id, RequestStatus::Running, SendState::NotSent),
        finished(s.id, RequestStatus::Completed, SendState::Ambiguous),
    ];
    store.record_updates(&late).await?;
    let row = store.get_request(s.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Failed, SendState::Sent));
    assert_eq!(row.outcome.error_code.as_deref(), Some("upstream_reset"));

    h.finish().await
}

pub async fn a_terminal_row_can_still_raise_its_watermark(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let s = start(now(), Duration::minutes(5));
    store.record_starts(std::slice::from_ref(&s)).await?;
    store.record_updates(&[finished(s.id, RequestStatus::Cancelled, SendState::NotSent)]).await?;
    store.record_updates(&[finished(s.id, RequestStatus::Completed, SendState::Ambiguous)]).await?;
    let row = store.get_request(s.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Cancelled, SendState::Ambiguous));
    h.finish().await
}

pub async fn stale_recovery_marks_incomplete_in_bounded_batches_and_never_replays(
    h: impl Harness,
) -> anyhow::Result<()> {
    let store = h.store();
    let past = now() - Duration::hours(1);
    let stale: Vec<RequestStart> = (0..3).map(|_| start(past, Duration::minutes(10))).collect();
    let live = start(now(), Duration::minutes(10));
    store.record_starts(&stale).await?;
    store.record_starts(std::slice::from_ref(&live)).await?;
    store.record_updates(&[RequestUpdate::new(stale[0].id, RequestStatus::Running, SendState::Ambiguous)]).await?;

    assert_eq!(store.recover_stale(now(), 2).await?.len(), 2);
    assert_eq!(store.recover_stale(now(), 2).await?.len(), 1);
    assert!(store.recover_stale(now(), 2).await?.is_empty());
    for s in &stale {
        let row = store.get_request(s.id).await?;
        assert_eq!(row.status, RequestStatus::Incomplete);
        assert_eq!(row.outcome.error_code.as_deref(), Some("stale_recovered"));
    }
    assert_eq!(store.get_request(stale[0].id).await?.send_state, SendState::Ambiguous, "kept, not replayed");
    assert_eq!(store.get_request(live.id).await?.status, RequestStatus::Running);
    h.finish().await
}

pub async fn the_rows_of_a_lost_boot_are_recovered_keeping_what_the_client_received(
    h: impl Harness,
) -> anyhow::Result<()> {
    let store = h.store();
    let (lost, live) = (runner("host-a:8080", 1), runner("host-b:8080", 2));
    let with = |runner: Option<&Runner>| {
        let mut s = start(now(), Duration::hours(1));
        s.runner = runner.cloned();
        s
    };
    let (committed, waiting, other, legacy) = (with(Some(&lost)), with(Some(&lost)), with(Some(&live)), with(None));
    store.record_starts(&[committed.clone(), waiting.clone(), other.clone(), legacy.clone()]).await?;
    let mut progress = RequestUpdate::new(committed.id, RequestStatus::Running, SendState::Sent);
    progress.outcome.http_status = Some(200);
    progress.downstream_committed_at = Some(now());
    progress.outcome.client_response_id = Some(b"resp_committed".to_vec());
    store.record_updates(&[progress]).await?;

    let mut boots = store.running_boots(10).await?;
    boots.sort();
    assert_eq!(boots, vec![lost.boot, live.boot], "rows without a runner are not listed");
    assert_eq!(store.recover_boot(lost.boot, now(), 1).await?.len(), 1, "bounded");
    assert_eq!(store.recover_boot(lost.boot, now(), 1).await?.len(), 1);
    assert!(store.recover_boot(lost.boot, now(), 1).await?.is_empty());

    let row = store.get_request(committed.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Incomplete, SendState::Sent));
    assert_eq!(row.outcome.error_code.as_deref(), Some("replica_lost"));
    assert_eq!(row.outcome.http_status, Some(200));
    assert!(row.downstream_committed_at.is_some() && row.finished_at.is_some());
    assert_eq!(row.outcome.client_response_id.as_deref(), Some(&b"resp_committed"[..]));
    assert_eq!(row.start.runner, Some(lost.clone()), "the row tells which process ran it");
    let row = store.get_request(waiting.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Incomplete, SendState::NotSent));
    assert_eq!(store.get_request(other.id).await?.status, RequestStatus::Running, "another boot's row runs on");
    assert_eq!(store.get_request(legacy.id).await?.status, RequestStatus::Running);
    assert_eq!(store.running_boots(10).await?, vec![live.boot]);
    h.finish().await
}

pub async fn a_restarted_replica_closes_the_running_requests_of_its_own_earlier_boots_only(
    h: impl Harness,
) -> anyhow::Result<()> {
    let store = h.store();
    let (earlier, earliest, current) = (runner("gw-1", 1), runner("gw-1", 2), runner("gw-1", 3));
    let other = runner("gw-2", 4);
    let with = |runner: Option<&Runner>| {
        let mut s = start(now(), Duration::hours(1));
        s.runner = runner.cloned();
        s
    };
    let (committed, waiting, older, own, elsewhere, legacy) = (
        with(Some(&earlier)),
        with(Some(&earlier)),
        with(Some(&earliest)),
        with(Some(&current)),
        with(Some(&other)),
        with(None),
    );
    store
        .record_starts(&[
            committed.clone(),
            waiting.clone(),
            older.clone(),
            own.clone(),
            elsewhere.clone(),
            legacy.clone(),
        ])
        .await?;
    let mut progress = RequestUpdate::new(committed.id, RequestStatus::Running, SendState::Sent);
    progress.outcome.http_status = Some(200);
    progress.downstream_committed_at = Some(now());
    progress.outcome.client_response_id = Some(b"resp_committed".to_vec());
    store.record_updates(&[progress]).await?;

    let mut boots = store.running_boots_of(&current.replica, 10).await?;
    boots.sort();
    assert_eq!(boots, vec![earlier.boot, earliest.boot, current.boot], "every boot of the name with running rows");
    assert_eq!(store.running_boots_of(&other.replica, 10).await?, vec![other.boot]);
    assert_eq!(store.running_boots_of(&current.replica, 1).await?.len(), 1, "bounded");

    assert_eq!(store.recover_restarted_boot(&current.replica, earlier.boot, now(), 1).await?.len(), 1, "bounded");
    assert_eq!(store.recover_restarted_boot(&current.replica, earlier.boot, now(), 1).await?.len(), 1);
    assert!(store.recover_restarted_boot(&current.replica, earlier.boot, now(), 1).await?.is_empty());
    assert!(
        store.recover_restarted_boot(&current.replica, other.boot, now(), 10).await?.is_empty(),
        "a boot of another replica name is not this replica's predecessor"
    );
    assert_eq!(store.recover_restarted_boot(&current.replica, earliest.boot, now(), 10).await?.len(), 1);

    let row = store.get_request(committed.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Incomplete, SendState::Sent));
    assert_eq!(row.outcome.error_code.as_deref(), Some("replica_restarted"));
    assert_eq!(row.outcome.http_status, Some(200));
    assert!(row.downstream_committed_at.is_some() && row.finished_at.is_some());
    assert_eq!(row.outcome.client_response_id.as_deref(), Some(&b"resp_committed"[..]));
    let row = store.get_request(waiting.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Incomplete, SendState::NotSent), "kept, not replayed");
    assert_eq!(store.get_request(older.id).await?.outcome.error_code.as_deref(), Some("replica_restarted"));
    for untouched in [&own, &elsewhere, &legacy] {
        assert_eq!(store.get_request(untouched.id).await?.status, RequestStatus::Running);
    }
    assert_eq!(store.running_boots_of(&current.replica, 10).await?, vec![current.boot]);
    h.finish().await
}

pub async fn request_retention_deletes_finished_rows_in_bounded_batches(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let old = now() - Duration::days(40);
    let old_rows: Vec<RequestStart> = (0..5).map(|_| start(old, Duration::minutes(10))).collect();
    let old_running = start(old, Duration::days(100));
    let recent = start(now(), Duration::minutes(10));
    store.record_starts(&old_rows).await?;
    store.record_starts(&[old_running.clone(), recent.clone()]).await?;
    let updates: Vec<RequestUpdate> =
        old_rows.iter().chain([&recent]).map(|s| finished(s.id, RequestStatus::Completed, SendState::Sent)).collect();
    store.record_updates(&updates).await?;

    let cutoff = now() - Duration::days(30);
    let batches = [
        store.delete_requests_before(cutoff, 2).await?,
        store.delete_requests_before(cutoff, 2).await?,
        store.delete_requests_before(cutoff, 2).await?,
        store.delete_requests_before(cutoff, 2).await?,
    ];
    assert_eq!(batches, [2, 2, 1, 0]);
    assert_eq!(store.get_request(old_running.id).await?.status, RequestStatus::Running, "running rows stay");
    assert_eq!(store.get_request(recent.id).await?.status, RequestStatus::Completed, "recent rows stay");
    for s in &old_rows {
        assert_eq!(store.get_request(s.id).await.expect_err("deleted").kind(), StorageErrorKind::NotFound);
    }
    h.finish().await
}

pub async fn a_batch_writes_requests_that_ended_in_it_as_finished_rows(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    // Stored by an earlier batch, finished in this one.
    let earlier = start(now(), Duration::minutes(5));
    store.record_starts(std::slice::from_ref(&earlier)).await?;
    // Started and finished within this batch (progress, then terminal).
    let quick = start(now(), Duration::minutes(5));
    // Started in this batch, still running.
    let open = start(now(), Duration::minutes(5));

    let mut progress = RequestUpdate::new(quick.id, RequestStatus::Running, SendState::Sent);
    progress.attempts = Some(vec![attempt(1)]);
    let mut done = finished(quick.id, RequestStatus::Completed, SendState::NotSent);
    done.outcome.usage =
        Some(TokenUsage { input_tokens: 7, output_tokens: 3, total_tokens: 10, ..TokenUsage::default() });
    done.outcome.client_response_id = Some(b"resp_\x00quick".to_vec());
    let earlier_done = finished(earlier.id, RequestStatus::Failed, SendState::Ambiguous);

    let (inserted, updated) =
        store.record_batch(&[quick.clone(), open.clone()], &[progress, done, earlier_done]).await?;
    assert_eq!((inserted, updated), (2, 1));

    let row = store.get_request(quick.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Completed, SendState::Sent), "folded watermark");
    assert_eq!(row.outcome.usage.map(|u| u.total_tokens), Some(10));
    assert_eq!(row.attempts, [attempt(1)], "a value the terminal update left out is kept");
    assert_eq!(row.outcome.client_response_id.as_deref(), Some(&b"resp_\x00quick"[..]));
    assert!(row.finished_at.is_some());
    let row = store.get_request(open.id).await?;
    assert_eq!((row.status, row.send_state, row.finished_at), (RequestStatus::Running, SendState::NotSent, None));
    let row = store.get_request(earlier.id).await?;
    assert_eq!((row.status, row.send_state), (RequestStatus::Failed, SendState::Ambiguous));

    // A start already stored (sent twice) still gets its update.
    let again = finished(open.id, RequestStatus::Cancelled, SendState::Sent);
    store.record_batch(std::slice::from_ref(&open), &[again]).await?;
    assert_eq!(store.get_request(open.id).await?.status, RequestStatus::Cancelled);
    h.finish().await
}

/// Batches the size the observation writer flushes under load (past any per-statement chunk):
/// every start is stored once, every update lands on its own row, and each row keeps its own
/// values.
pub async fn a_large_batch_writes_every_row_with_its_own_values(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let earlier: Vec<RequestStart> = (0..37).map(|_| start(now(), Duration::minutes(5))).collect();
    assert_eq!(store.record_starts(&earlier).await?, 37);
    let fresh: Vec<RequestStart> = (0..131).map(|_| start(now(), Duration::minutes(5))).collect();
    let token_update = |id: RequestId, n: u64| {
        let mut update = finished(id, RequestStatus::Completed, SendState::Sent);
        update.outcome.usage = Some(TokenUsage { output_tokens: n, total_tokens: n, ..TokenUsage::default() });
        update
    };
    // Every other fresh start ends in the batch; every earlier one too; one start is repeated.
    let mut updates: Vec<RequestUpdate> =
        fresh.iter().enumerate().step_by(2).map(|(n, s)| token_update(s.id, n as u64 + 1)).collect();
    updates.extend(earlier.iter().enumerate().map(|(n, s)| token_update(s.id, 1000 + n as u64)));
    let mut starts = fresh.clone();
    starts.push(earlier[3].clone());

    let (inserted, updated) = store.record_batch(&starts, &updates).await?;
    assert_eq!((inserted, updated), (131, 37));
    for (n, s) in fresh.iter().enumerate() {
        let row = store.get_request(s.id).await?;
        let expected = (n % 2 == 0).then_some(n as u64 + 1);
        assert_eq!(row.outcome.usage.map(|u| u.total_tokens), expected, "fresh row {n}");
        let status = if n % 2 == 0 { RequestStatus::Completed } else { RequestStatus::Running };
        assert_eq!(row.status, status, "fresh row {n}");
    }
    for (n, s) in earlier.iter().enumerate() {
        let row = store.get_request(s.id).await?;
        assert_eq!(row.outcome.usage.map(|u| u.total_tokens), Some(1000 + n as u64), "earlier row {n}");
    }
    // The same updates again change nothing: the rows are terminal and the watermark is at its top.
    assert_eq!(store.record_updates(&updates).await?, 0);
    h.finish().await
}

/// The read model is what was written: the start, the typed attempts, the outcome, the commit
/// and finish times and the latency splits (attempt starts at millisecond precision, the row's
/// times at microsecond precision).
pub async fn a_request_reads_back_typed_as_it_was_written(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let mut s = start(now(), Duration::minutes(5));
    s.routing = RoutingSnapshot::Groups(vec![GroupRef { id: GroupId(3), name: "team".to_owned() }]);
    s.runner = Some(runner("host-c:8080", 7));
    store.record_starts(std::slice::from_ref(&s)).await?;

    let mut answered = attempt(2);
    answered.started_at += Duration::milliseconds(1_234);
    (answered.outcome, answered.http_status, answered.duration_ms) = (AttemptOutcome::Ok, Some(200), None);
    let mut done = finished(s.id, RequestStatus::Completed, SendState::Sent);
    done.provider = Some(ProviderKind::Openai);
    done.attempts = Some(vec![attempt(1), answered]);
    done.outcome = RequestOutcome {
        http_status: Some(200),
        error_code: None,
        usage: Some(TokenUsage {
            input_tokens: 11,
            cached_input_tokens: 4,
            output_tokens: 6,
            reasoning_tokens: 2,
            total_tokens: 17,
        }),
        cost: Some(NanoUsd(12_345)),
        service_tier: Some("priority".to_owned()),
        upstream_model: Some("gpt-5-2026-01-01".to_owned()),
        client_response_id: Some(b"resp_client".to_vec()),
        upstream_response_id: Some(b"resp_\xffupstream".to_vec()),
    };
    done.downstream_committed_at = Some(now());
    done.latency = LatencySplits {
        connect_ms: Some(1),
        headers_ms: Some(2),
        first_event_ms: Some(3),
        first_token_ms: Some(4),
        total_ms: Some(5),
    };
    store.record_updates(std::slice::from_ref(&done)).await?;

    let expected = ModelRequestRecord {
        start: s.clone(),
        status: RequestStatus::Completed,
        send_state: SendState::Sent,
        provider: Some(ProviderKind::Openai),
        account_id: None,
        attempts: done.attempts.clone().unwrap_or_default(),
        outcome: done.outcome.clone(),
        downstream_committed_at: done.downstream_committed_at,
        finished_at: done.finished_at,
        latency: done.latency,
    };
    assert_eq!(store.get_request(s.id).await?, expected);

    // The same row written in one batch with its start (the insert path) reads back the same.
    let mut again = s.clone();
    again.id = RequestId::new();
    done.id = again.id;
    store.record_batch(std::slice::from_ref(&again), std::slice::from_ref(&done)).await?;
    let expected = ModelRequestRecord { start: again.clone(), ..expected };
    assert_eq!(store.get_request(again.id).await?, expected);
    h.finish().await
}

//! [`UsageQueries`]: filtered lists, totals with exact percentiles, breakdowns, UTC buckets.

use gateway_admin::ports::{UnitOfWork, UsageQueries};
use gateway_admin::usage::{BucketWidth, RequestCursor, UsageDimension, UsageFilter};
use gateway_core::domain::{
    LatencySplits, NanoUsd, RequestId, RequestStart, RequestStatus, RequestUpdate, RoutingSnapshot, SendState,
    TokenUsage, Transport,
};
use gateway_core::ports::RequestLog;
use time::macros::datetime;

use crate::storage_contract::fixtures::{Harness, attempt, audit, import, new_key};

fn start(id: u128, minute: i64) -> RequestStart {
    let started_at = datetime!(2026-03-10 10:00 UTC) + time::Duration::minutes(minute);
    RequestStart {
        id: RequestId(uuid::Uuid::from_u128(id)),
        client_key_id: None,
        requested_model: "gpt-5".to_owned(),
        operation: "responses.create".to_owned(),
        transport: Transport::Http,
        stream: false,
        routing: RoutingSnapshot::All,
        started_at,
        deadline_at: started_at + time::Duration::hours(1),
        runner: None,
    }
}

pub async fn usage_totals_groups_and_trends_agree(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let account = import(&store, "acct-1", "tok").await?.account_id;
    let mut tx = store.begin().await?;
    let key = tx.create_client_key(&new_key("usage")).await?;
    tx.commit(audit("client_key.create", "client_key")).await?;

    // Four requests: three finished on the account (10, 20, 40 ms), one 429 without an account.
    let mut starts: Vec<RequestStart> =
        [(1, 0), (2, 30), (3, 70), (4, 75)].iter().map(|&(id, m)| start(id, m)).collect();
    starts[0].client_key_id = Some(key);
    starts[3].requested_model = "gpt-5-mini".to_owned();
    store.record_starts(&starts).await?;
    let mut updates = Vec::new();
    for (s, ms, status) in [
        (&starts[0], 10, RequestStatus::Completed),
        (&starts[1], 20, RequestStatus::Completed),
        (&starts[2], 40, RequestStatus::Failed),
    ] {
        let mut u = RequestUpdate::new(s.id, status, SendState::Sent);
        u.finished_at = Some(s.started_at + time::Duration::seconds(1));
        u.account_id = Some(account);
        u.outcome.http_status = Some(if status == RequestStatus::Completed { 200 } else { 502 });
        u.outcome.usage =
            Some(TokenUsage { input_tokens: 100, output_tokens: 10, total_tokens: 110, ..TokenUsage::default() });
        u.outcome.cost = Some(NanoUsd(1_000));
        u.latency = LatencySplits { total_ms: Some(ms), first_token_ms: Some(ms / 2), ..LatencySplits::default() };
        updates.push(u);
    }
    let mut refused = RequestUpdate::new(starts[3].id, RequestStatus::Failed, SendState::NotSent);
    refused.finished_at = Some(starts[3].started_at);
    refused.outcome.http_status = Some(429);
    refused.outcome.error_code = Some("rate_limited".to_owned());
    updates.push(refused);
    store.record_updates(&updates).await?;

    let all = UsageFilter::default();
    let totals = store.usage_totals(&all).await?;
    assert_eq!((totals.requests, totals.completed, totals.failed, totals.client_errors), (4, 2, 2, 1));
    assert_eq!((totals.input_tokens, totals.total_tokens, totals.cost_nano_usd), (300, 330, 3_000));
    assert_eq!(totals.total_ms_p50, Some(20.0));
    assert_eq!(totals.total_ms_p95, Some(38.0), "interpolated like percentile_cont");
    assert_eq!(totals.first_token_ms_p50, Some(10.0));
    let none = store.usage_totals(&UsageFilter { model: Some("nothing".to_owned()), ..all.clone() }).await?;
    assert_eq!((none.requests, none.total_ms_p50, none.cost_nano_usd), (0, None, 0));
    let keyed = store.usage_totals(&UsageFilter { client_key: Some(key), ..all.clone() }).await?;
    assert_eq!(keyed.requests, 1);

    let by_model = store.usage_groups(&all, UsageDimension::Model, 10).await?;
    let shape: Vec<(Option<&str>, u64)> = by_model.iter().map(|g| (g.key.as_deref(), g.totals.requests)).collect();
    assert_eq!(shape, [(Some("gpt-5"), 3), (Some("gpt-5-mini"), 1)]);
    let by_account = store.usage_groups(&all, UsageDimension::Account, 10).await?;
    assert_eq!(by_account[0].key, Some(account.0.to_string()));
    assert_eq!(by_account[0].label.as_deref(), Some("acct-1@example.com"));
    assert_eq!((by_account[1].key.as_deref(), by_account[1].totals.requests), (None, 1), "NULL sorts last");
    assert_eq!(store.usage_groups(&all, UsageDimension::Status, 1).await?.len(), 1, "bounded");

    let hours = store.usage_trend(&all, BucketWidth::Hour, "UTC").await?;
    let shape: Vec<(time::OffsetDateTime, u64)> = hours.iter().map(|b| (b.start, b.totals.requests)).collect();
    assert_eq!(shape, [(datetime!(2026-03-10 10:00 UTC), 2), (datetime!(2026-03-10 11:00 UTC), 2)]);
    let days = store.usage_trend(&all, BucketWidth::Day, "UTC").await?;
    assert_eq!(
        days.iter().map(|b| (b.start, b.totals.requests)).collect::<Vec<_>>(),
        [(datetime!(2026-03-10 0:00 UTC), 4)]
    );
    assert!(store.time_zone_exists("UTC").await?);
    assert!(!store.time_zone_exists("Not/AZone").await?);
    let starts_of = store.calendar_starts(datetime!(2026-03-10 15:30 UTC), "UTC").await?;
    assert_eq!((starts_of.day, starts_of.month), (datetime!(2026-03-10 0:00 UTC), datetime!(2026-03-01 0:00 UTC)));
    let used = store.last_used_by_account().await?;
    assert_eq!(used, [(account, starts[2].started_at)]);
    h.finish().await
}

pub async fn request_lists_page_newest_first_and_details_carry_attempts(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let starts: Vec<RequestStart> = (1..=5).map(|i| start(i, i64::try_from(i).unwrap_or(0))).collect();
    store.record_starts(&starts).await?;
    let mut u = RequestUpdate::new(starts[4].id, RequestStatus::Running, SendState::Ambiguous);
    u.attempts = Some(vec![attempt(1), attempt(2)]);
    store.record_updates(&[u]).await?;
    let all = UsageFilter::default();
    let first = store.list_requests(&all, None, 2).await?;
    assert_eq!(first.iter().map(|r| r.id).collect::<Vec<_>>(), [starts[4].id, starts[3].id]);
    assert_eq!(first[0].attempt_count, 2);
    let cursor = RequestCursor { started_at: first[1].started_at, id: first[1].id };
    let next = store.list_requests(&all, Some(cursor), 10).await?;
    assert_eq!(next.iter().map(|r| r.id).collect::<Vec<_>>(), [starts[2].id, starts[1].id, starts[0].id]);
    let window = UsageFilter {
        from: Some(starts[1].started_at),
        to: Some(starts[3].started_at),
        status: Some(RequestStatus::Running),
        ..all
    };
    assert_eq!(store.list_requests(&window, None, 10).await?.len(), 2, "from inclusive, to exclusive");
    let detail = store.request_detail(starts[4].id).await?;
    assert_eq!(detail.request.attempts, [attempt(1), attempt(2)]);
    assert_eq!(detail.request.start, starts[4]);
    assert_eq!(detail.request.send_state, SendState::Ambiguous);
    assert_eq!(detail.summary(), first[0], "the detail's summary is the list's row");
    assert!(!detail.attempts_complete());
    let missing = store.request_detail(RequestId(uuid::Uuid::from_u128(99))).await.expect_err("missing");
    assert_eq!(missing.kind(), gateway_core::ports::StorageErrorKind::NotFound);
    h.finish().await
}

/// The error-rate rule's counts: finished requests started in `[from, to)` and the failed ones
/// among them; running rows and rows outside the window do not count.
pub async fn outcome_counts_count_finished_and_failed_requests_of_a_window(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    // Minutes 0, 10, 20, 30 and 40: completed, failed, failed (a refusal), running, completed.
    let starts: Vec<RequestStart> = (0..5).map(|i| start(100 + i as u128, i * 10)).collect();
    store.record_starts(&starts).await?;
    let mut updates = Vec::new();
    for (i, status) in [
        (0, RequestStatus::Completed),
        (1, RequestStatus::Failed),
        (2, RequestStatus::Failed),
        (4, RequestStatus::Completed),
    ] {
        let mut u = RequestUpdate::new(starts[i].id, status, SendState::Sent);
        u.finished_at = Some(starts[i].started_at + time::Duration::seconds(1));
        updates.push(u);
    }
    store.record_updates(&updates).await?;

    let at = |minute: i64| datetime!(2026-03-10 10:00 UTC) + time::Duration::minutes(minute);
    let all = store.outcome_counts(at(0), at(60)).await?;
    assert_eq!((all.finished, all.failed), (4, 2), "the running request is not counted");
    let window = store.outcome_counts(at(10), at(40)).await?;
    assert_eq!((window.finished, window.failed), (2, 2), "from is inclusive, to exclusive");
    let empty = store.outcome_counts(at(100), at(200)).await?;
    assert_eq!((empty.finished, empty.failed), (0, 0));
    Ok(())
}

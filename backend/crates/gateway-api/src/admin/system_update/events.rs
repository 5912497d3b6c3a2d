//! `GET /api/admin/system/update/events`: the progress of an update, rollback or restart as
//! Server-Sent Events.
//!
//! Every event is `progress` with `{seq, phase, message, downloadedBytes, totalBytes,
//! atUnixMs}`. A subscriber gets the running run's events so far, then the rest; the stream
//! ends after the event whose phase ends the run in this process (`restarting`, `failed`,
//! `idle`). When nothing runs it waits up to `waitSeconds` (0–10, default 0) for a run to begin
//! — so a client can subscribe before it starts one — and otherwise sends one `idle` event and
//! ends.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use gateway_host::update::{Phase, Progress, ProgressEvent};
use serde::Deserialize;
use tokio::sync::watch;
use tokio::time::Instant;
use utoipa::IntoParams;

use crate::admin::AdminApi;
use crate::admin::envelope::{ApiFailure, ApiResult, ErrorBody};
use crate::admin::extract::QueryParams;

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// When nothing runs: how long to wait for a run to begin (0–10 s).
    #[param(minimum = 0, maximum = 10)]
    pub wait_seconds: Option<u64>,
}

struct Follow {
    rx: watch::Receiver<Progress>,
    /// The run followed; `None` while waiting for one to begin.
    run: Option<u64>,
    /// Runs up to this one are over; a later one is followed.
    over: u64,
    wait_until: Instant,
    sent: u64,
    pending: VecDeque<ProgressEvent>,
    done: bool,
}

impl Follow {
    fn new(rx: watch::Receiver<Progress>, wait: Duration) -> Self {
        let now = rx.borrow().clone();
        let running = now.action.is_some() && !now.phase().is_final();
        let (run, over) = if running { (Some(now.run), now.run.saturating_sub(1)) } else { (None, now.run) };
        Self { rx, run, over, wait_until: Instant::now() + wait, sent: 0, pending: VecDeque::new(), done: false }
    }

    async fn next(mut self) -> Option<(Result<Event, Infallible>, Self)> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                self.sent = event.seq;
                self.done = event.phase.is_final();
                let data = serde_json::to_string(&event).unwrap_or_default();
                return Some((Ok(Event::default().event("progress").data(data)), self));
            }
            if self.done {
                return None;
            }
            let progress = self.rx.borrow_and_update().clone();
            if self.run.is_none() && progress.run > self.over {
                self.run = Some(progress.run);
            }
            match self.run {
                Some(run) if progress.run == run => {
                    self.pending.extend(progress.events.into_iter().filter(|e| e.seq > self.sent));
                    if self.pending.is_empty() {
                        self.rx.changed().await.ok()?;
                    }
                }
                // A newer run replaced the followed one: it is over for this subscriber.
                Some(_) => self.pending.push_back(idle()),
                None => match tokio::time::timeout_at(self.wait_until, self.rx.changed()).await {
                    Ok(Ok(())) => {}
                    Ok(Err(_)) | Err(_) => self.pending.push_back(idle()),
                },
            }
        }
    }
}

fn idle() -> ProgressEvent {
    ProgressEvent {
        seq: 0,
        phase: Phase::Idle,
        message: "no update is running".into(),
        downloaded_bytes: 0,
        total_bytes: None,
        at_unix_ms: 0,
    }
}

#[utoipa::path(get, path = "/api/admin/system/update/events", tag = "system", params(EventsQuery),
    responses(
        (status = 200, description = "Server-Sent Events `progress` until the run ends in this process (restarting, failed, idle)", content_type = "text/event-stream"),
        (status = "4XX", body = ErrorBody)))]
pub async fn update_events(
    State(api): State<AdminApi>,
    QueryParams(query): QueryParams<EventsQuery>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let wait = query.wait_seconds.unwrap_or(0);
    if wait > 10 {
        return Err(ApiFailure::invalid("waitSeconds", "must be between 0 and 10"));
    }
    let follow = Follow::new(api.updates.subscribe(), Duration::from_secs(wait));
    let stream = futures_util::stream::unfold(follow, Follow::next);
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

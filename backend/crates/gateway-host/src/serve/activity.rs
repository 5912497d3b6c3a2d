//! Whether a connection is serving anything: a request counts from the moment the service is
//! called until its response body is finished or dropped. The idle deadline of a connection is
//! measured against this count, the same way for HTTP/1.1 and HTTP/2.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use tokio::sync::watch;
use tokio::time::Instant;

#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    in_flight: usize,
    started: u64,
}

/// The requests of one connection.
#[derive(Debug)]
pub struct Activity {
    counts: watch::Sender<Counts>,
}

impl Activity {
    pub fn new() -> Arc<Self> {
        Arc::new(Self { counts: watch::Sender::new(Counts::default()) })
    }

    /// A request starts; it ends when the returned guard is dropped.
    pub fn begin(self: &Arc<Self>) -> InFlight {
        self.counts.send_modify(|c| {
            c.in_flight += 1;
            c.started += 1;
        });
        InFlight { activity: self.clone() }
    }

    /// Resolves once a request is in flight (at once if one is).
    pub async fn busy(&self) {
        let mut counts = self.counts.subscribe();
        // The sender lives in `self`: the channel cannot close while this borrows it.
        let _ = counts.wait_for(|c| c.in_flight > 0).await;
    }

    pub fn is_idle(&self) -> bool {
        self.counts.borrow().in_flight == 0
    }

    /// Resolves once the connection has stayed without a request in flight for too long:
    /// `first` from now while no request has started yet, `between` after each request ends.
    /// The clock starts and the counts are watched when this is called, not when the future is
    /// first polled: requests served before that are seen.
    pub fn idle_too_long(&self, first: Duration, between: Duration) -> impl Future<Output = ()> + Send + use<> {
        let mut counts = self.counts.subscribe();
        let mut deadline = Instant::now() + first;
        async move {
            let mut last = Counts::default();
            loop {
                let now = *counts.borrow_and_update();
                // The connection went idle since we last looked: the idle clock restarts.
                if now.in_flight == 0 && (now.started != last.started || last.in_flight != 0) {
                    deadline = Instant::now() + between;
                }
                last = now;
                if now.in_flight == 0 {
                    tokio::select! {
                        () = tokio::time::sleep_until(deadline) => return,
                        changed = counts.changed() => if changed.is_err() { return },
                    }
                } else if counts.changed().await.is_err() {
                    return;
                }
            }
        }
    }
}

/// One request in flight on its connection.
#[derive(Debug)]
pub struct InFlight {
    activity: Arc<Activity>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.activity.counts.send_modify(|c| c.in_flight = c.in_flight.saturating_sub(1));
    }
}

/// A response body that keeps its request counted as in flight until it is done.
pub struct TrackedBody {
    body: Body,
    _in_flight: InFlight,
}

impl TrackedBody {
    pub fn new(body: Body, in_flight: InFlight) -> Self {
        Self { body, _in_flight: in_flight }
    }
}

impl http_body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

//! Delivery: the downstream commit barrier, facts read on the side, and the terminal
//! observation.
//!
//! The barrier is crossed in memory (`RequestRecord::commit`) just before the first frame is
//! handed to the HTTP layer (invariant 4); from then on nothing is retried. Frames go out as the
//! provider yielded them — for OpenAI the upstream's own bytes. After the commit an upstream
//! failure becomes an in-stream `error` event. A client that hangs up after the terminal event
//! leaves a successful record; one that hangs up before leaves a cancelled one that still
//! tells what the client had received (status line, commit time, response id).
//!
//! The commit itself is observed at once (`RequestRecord::commit`), so a crash of the process
//! after it leaves a row that says the stream was committed. The slots are not renewed here:
//! the replica's heartbeat renews every slot it holds with one call per period.
//!
//! The parts, one job each: [`commit_barrier`] (owns the record), [`facts_tap`] (facts and
//! latency read on the side), [`accounting`] (terminal outcome and spend), [`lease_keeper`]
//! (the slots until the release). `Delivery` drives them over the frame stream.

mod accounting;
mod commit_barrier;
mod facts_tap;
mod lease_keeper;

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use gateway_protocol::aggregate::Aggregator;
use gateway_protocol::events::read_facts;
use gateway_protocol::{ApiError, ErrorCode, EventKind, SseFrame};

use self::accounting::Accounting;
use self::commit_barrier::CommitBarrier;
use self::facts_tap::{FactsTap, kind_of};
use self::lease_keeper::LeaseKeeper;
use super::attempts::Accepted;
use super::record::RequestRecord;
use crate::accounting::PriceTable;
use crate::coordination::{ContinuationPin, ContinuationPins};
use crate::domain::{AccountId, ProviderKind, RequestOutcome, RequestStatus};
use crate::observation::Observation;
use crate::provider::{FrameStream, StreamFailure, UpstreamEvent};

/// Where to pin a continuable response (an upstream WebSocket answer, or an HTTP answer the
/// upstream stores: `Provider::stores_http_response`) before its id reaches the client.
pub struct PinContext {
    pub pins: Arc<dyn ContinuationPins>,
    pub key: Arc<crate::snapshot::KeyEntry>,
    pub provider: ProviderKind,
    pub ttl: Duration,
}

/// What one pin write needs: the port, the response id, the pin and its TTL.
type PinJob = (Arc<dyn ContinuationPins>, String, ContinuationPin, Duration);

pub struct Delivery {
    frames: FrameStream,
    /// The first client-facing frame, read before the reply was handed over.
    prefetched: Option<SseFrame>,
    pin: Option<PinContext>,
    served_by: (ProviderKind, AccountId),
    forward_headers: Vec<(String, String)>,
    barrier: CommitBarrier,
    tap: FactsTap,
    accounting: Accounting,
    lease: LeaseKeeper,
    finished: bool,
    /// The request span (kept open until the delivery ends) and its `deliver` phase span
    /// (closed at the finish).
    request_span: tracing::Span,
    deliver_span: tracing::Span,
}

/// The non-stream outcome.
pub enum NonStreamReply {
    Ok { headers: Vec<(String, String)>, body: Bytes },
    Err(ApiError),
}

impl Delivery {
    pub(crate) fn new(
        accepted: Accepted,
        record: RequestRecord,
        model: String,
        prices: Arc<PriceTable>,
        pin: Option<PinContext>,
    ) -> Self {
        Self {
            frames: accepted.reply.frames,
            prefetched: None,
            pin,
            served_by: (accepted.provider, accepted.account),
            forward_headers: accepted.reply.forward_headers,
            barrier: CommitBarrier::new(record),
            tap: FactsTap::default(),
            accounting: Accounting::new(prices, model, accepted.reply.served_model),
            lease: LeaseKeeper::new(accepted.guard),
            finished: false,
            request_span: tracing::Span::current(),
            deliver_span: crate::phase!("deliver", provider = accepted.provider.as_str()),
        }
    }

    /// The tier the key's policy sent upstream, recorded when the response names none.
    pub(crate) fn forcing_tier(mut self, tier: Option<&'static str>) -> Self {
        self.accounting.forced_tier = tier;
        self
    }

    fn headers(&self, content_type: &str) -> Vec<(String, String)> {
        let mut headers = vec![("content-type".to_owned(), content_type.to_owned())];
        if content_type == "text/event-stream" {
            headers.push(("cache-control".to_owned(), "no-cache".to_owned()));
        }
        headers.extend(self.forward_headers.iter().cloned());
        headers
    }

    /// Reads up to the first client-facing frame, so that a stream that breaks before it still
    /// gets a plain HTTP error (nothing was committed yet).
    pub async fn prefetch(mut self) -> Result<(Vec<(String, String)>, Self), ApiError> {
        loop {
            match next(&mut self.frames).await {
                Some(Ok(UpstreamEvent::Frame(frame))) => {
                    // Owned, so that no borrow of `self` (not `Sync`) lives across the write.
                    if let Some(job) = self.pin_job(&frame) {
                        write_pin(job).await;
                    }
                    self.prefetched = Some(frame);
                    self.barrier.hand_over();
                    let headers = self.headers("text/event-stream");
                    return Ok((headers, self));
                }
                Some(Ok(UpstreamEvent::Quota(facts))) => self.observe_quota(facts),
                Some(Err(failure)) => return Err(self.fail_before_commit(&failure.message)),
                None => return Err(self.fail_before_commit("the upstream closed the stream before any event")),
            }
        }
    }

    /// What pinning this frame needs, if it is the `response.created` of a continuable response.
    fn pin_job(&self, frame: &SseFrame) -> Option<PinJob> {
        let pin = self.pin.as_ref()?;
        if kind_of(frame) != EventKind::Created {
            return None;
        }
        let id = frame.data().and_then(|d| read_facts(&d).response_id)?;
        let record = super::continuation::pin_for(&pin.key, pin.provider, self.served_by.1, &id);
        Some((pin.pins.clone(), id, record, pin.ttl))
    }

    /// The response id, once the upstream announced it.
    pub fn response_id(&self) -> Option<&str> {
        self.tap.facts().response_id.as_deref()
    }

    /// Whether the response ended in a state a later turn can continue (completed or
    /// incomplete), as opposed to failed or cut.
    pub fn continuable(&self) -> bool {
        matches!(self.tap.facts().status.as_deref(), Some("completed" | "incomplete"))
    }

    /// The provider and account that served this response.
    pub fn served_by(&self) -> (ProviderKind, AccountId) {
        self.served_by
    }

    /// Drives the whole stream and answers with the aggregated response object.
    pub async fn collect(mut self) -> NonStreamReply {
        let mut aggregator = Aggregator::new();
        loop {
            match next(&mut self.frames).await {
                Some(Ok(UpstreamEvent::Frame(frame))) => {
                    if let Some(job) = self.pin_job(&frame) {
                        write_pin(job).await;
                    }
                    if matches!(kind_of(&frame), EventKind::Completed | EventKind::Incomplete) {
                        let span = self.commit_span();
                        span.in_scope(|| self.barrier.cross_at_terminal());
                    }
                    let kind = self.observe(&frame);
                    if let Some(data) = frame.data() {
                        aggregator.push(kind, &data);
                    }
                    if kind.is_terminal() {
                        break;
                    }
                }
                Some(Ok(UpstreamEvent::Quota(facts))) => self.observe_quota(facts),
                Some(Err(failure)) => return NonStreamReply::Err(self.fail_before_commit(&failure.message)),
                None => break,
            }
        }
        let Some((kind, response)) = aggregator.finish() else {
            return NonStreamReply::Err(self.fail_before_commit("the upstream stream ended without a terminal event"));
        };
        if kind == EventKind::Failed {
            let facts = self.tap.facts();
            let message =
                facts.error_message.clone().unwrap_or_else(|| "The upstream failed to generate a response.".to_owned());
            let mut error = ApiError::new(ErrorCode::UpstreamError, message);
            error.upstream_code = facts.error_code.clone().filter(|c| c.len() <= 64);
            return NonStreamReply::Err(error);
        }
        let body = Bytes::from(serde_json::to_vec(&response).unwrap_or_default());
        NonStreamReply::Ok { headers: self.headers("application/json"), body }
    }

    fn observe_quota(&mut self, facts: Box<crate::domain::QuotaFacts>) {
        let account = self.served_by.1;
        self.barrier.record().queue().push(Observation::Quota { account, facts });
    }

    /// Reads the facts of one frame and, on a terminal event, finishes the request.
    fn observe(&mut self, frame: &SseFrame) -> EventKind {
        let kind = self.tap.read(frame, self.barrier.record());
        if kind.is_terminal() {
            let status = match kind {
                EventKind::Completed => RequestStatus::Completed,
                EventKind::Incomplete => RequestStatus::Incomplete,
                _ => RequestStatus::Failed,
            };
            self.finish(status, None);
        }
        kind
    }

    /// Finish: the one terminal observation, and the release of the slots (off the client's
    /// path) with what the request spent.
    fn finish(&mut self, status: RequestStatus, error_code: Option<&str>) {
        if self.finished {
            return;
        }
        self.finished = true;
        let _finish = self.finish_span(status).entered();
        let (outcome, spend) = self.accounting.outcome(status, error_code, self.tap.facts(), self.barrier.record());
        self.barrier.record().finish(status, outcome);
        self.lease.release(spend);
    }

    /// The client went away before the terminal event: a cancelled record that keeps what the
    /// client had received.
    fn finish_cancelled(&mut self) {
        self.finished = true;
        let _finish = self.finish_span(RequestStatus::Cancelled).entered();
        let outcome = self.accounting.cancelled(self.barrier.received(), self.tap.facts());
        self.barrier.record().finish(RequestStatus::Cancelled, outcome);
        self.lease.release(None);
    }

    fn fail_before_commit(&mut self, message: &str) -> ApiError {
        tracing::warn!(request = %self.barrier.id(), %message, "upstream stream failed before the commit");
        self.finished = true;
        let _finish = self.finish_span(RequestStatus::Failed).entered();
        self.barrier.record().finish(RequestStatus::Failed, RequestOutcome::error(Some(502), "stream_interrupted"));
        self.lease.release(None);
        ApiError::new(ErrorCode::StreamInterrupted, "The upstream stream broke before the response started.")
    }

    /// After the commit: an in-stream error event, and the record ends incomplete.
    fn fail_after_commit(&mut self, failure: &StreamFailure) -> Bytes {
        tracing::warn!(request = %self.barrier.id(), message = %failure.message, "upstream stream failed after the commit");
        let code = if failure.idle_timeout { ErrorCode::UpstreamTimeout } else { ErrorCode::StreamInterrupted };
        let error = ApiError::new(code, "The upstream stream ended before the response completed.");
        self.finish(RequestStatus::Incomplete, Some(code.code()));
        SseFrame::from_event("error", &error.stream_event(None)).raw
    }

    /// Hands one frame to the client: commit first (observed, with the response id the frame
    /// may have announced), then its bytes. The first frame's handling is the `commit` span.
    fn deliver(&mut self, frame: SseFrame) -> Bytes {
        let span = self.commit_span();
        let _entered = span.enter();
        self.barrier.before_frame(kind_of(&frame).is_terminal());
        self.observe(&frame);
        self.barrier.cross(self.tap.facts().response_id.as_deref());
        frame.raw
    }

    /// The `commit` phase span while the barrier is still to cross, else none.
    fn commit_span(&mut self) -> tracing::Span {
        if self.barrier.record().is_committed() {
            return tracing::Span::none();
        }
        self.request_span.in_scope(|| crate::phase!("commit"))
    }

    /// The `finish` phase span, with the request's terminal status; the `deliver` span ends.
    fn finish_span(&mut self, status: RequestStatus) -> tracing::Span {
        drop(std::mem::replace(&mut self.deliver_span, tracing::Span::none()));
        let span = self.request_span.in_scope(|| crate::phase!("finish"));
        span.record("outcome", status.as_str());
        span
    }
}

impl Drop for Delivery {
    fn drop(&mut self) {
        if !self.finished {
            self.finish_cancelled();
        }
    }
}

/// Pins a continuable response before its id can reach the client. A failed pin write is
/// logged: the response is still delivered, it just cannot be continued.
async fn write_pin((pins, id, record, ttl): PinJob) {
    if let Err(error) = pins.pin(id.as_bytes(), &record, ttl).await {
        tracing::warn!(%error, "continuation pin not written; the response cannot be continued");
    }
}

async fn next(frames: &mut FrameStream) -> Option<Result<UpstreamEvent, StreamFailure>> {
    std::future::poll_fn(|cx| frames.as_mut().poll_next(cx)).await
}

impl Stream for Delivery {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(frame) = this.prefetched.take() {
            return Poll::Ready(Some(Ok(this.deliver(frame))));
        }
        loop {
            return match this.frames.as_mut().poll_next(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Some(Ok(UpstreamEvent::Frame(frame)))) => Poll::Ready(Some(Ok(this.deliver(frame)))),
                Poll::Ready(Some(Ok(UpstreamEvent::Quota(facts)))) => {
                    this.observe_quota(facts);
                    continue;
                }
                Poll::Ready(Some(Err(failure))) => {
                    if this.finished {
                        Poll::Ready(None)
                    } else {
                        Poll::Ready(Some(Ok(this.fail_after_commit(&failure))))
                    }
                }
                Poll::Ready(None) => {
                    if this.finished {
                        Poll::Ready(None)
                    } else {
                        let failure = StreamFailure {
                            message: "the upstream closed the stream before the terminal event".to_owned(),
                            idle_timeout: false,
                        };
                        Poll::Ready(Some(Ok(this.fail_after_commit(&failure))))
                    }
                }
            };
        }
    }
}

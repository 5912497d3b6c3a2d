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

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use gateway_protocol::aggregate::Aggregator;
use gateway_protocol::events::{EventFacts, event_type, read_facts};
use gateway_protocol::{ApiError, ErrorCode, EventKind, SseFrame};

use super::attempts::Accepted;
use super::record::{Outcome, RequestRecord};
use crate::accounting::{PriceTable, token_usage};
use crate::coordination::{LeaseGuard, Spend};
use crate::domain::{AccountId, RequestStatus};
use crate::observation::Observation;
use crate::provider::{FrameStream, StreamFailure, UpstreamEvent};

/// Where to pin a continuable response (an upstream WebSocket answer) before its id reaches
/// the client.
pub struct PinContext {
    pub pins: Arc<dyn crate::coordination::ContinuationPins>,
    pub key: Arc<crate::snapshot::KeyEntry>,
    pub provider: crate::domain::ProviderKind,
    pub ttl: Duration,
}

pub struct Delivery {
    frames: FrameStream,
    pin: Option<PinContext>,
    provider: crate::domain::ProviderKind,
    prefetched: Option<SseFrame>,
    record: RequestRecord,
    guard: Option<LeaseGuard>,
    account: AccountId,
    model: String,
    served_model: Option<String>,
    forward_headers: Vec<(String, String)>,
    prices: Arc<PriceTable>,
    facts: EventFacts,
    finished: bool,
    /// The stream reply (status 200 and headers) went to the HTTP layer.
    handed_over: bool,
    first_content_seen: bool,
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
            pin,
            provider: accepted.provider,
            prefetched: None,
            record,
            guard: Some(accepted.guard),
            account: accepted.account,
            model,
            served_model: accepted.reply.served_model,
            forward_headers: accepted.reply.forward_headers,
            prices,
            facts: EventFacts::default(),
            finished: false,
            handed_over: false,
            first_content_seen: false,
        }
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
                    let job = self.pin_job(&frame);
                    if let Some((pins, id, record, ttl)) = job
                        && let Err(error) = pins.pin(id.as_bytes(), &record, ttl).await
                    {
                        tracing::warn!(%error, "continuation pin not written; the response cannot be continued");
                    }
                    self.prefetched = Some(frame);
                    self.handed_over = true;
                    let headers = self.headers("text/event-stream");
                    return Ok((headers, self));
                }
                Some(Ok(UpstreamEvent::Quota(facts))) => self.observe_quota(facts),
                Some(Err(failure)) => return Err(self.fail_before_commit(&failure.message)),
                None => return Err(self.fail_before_commit("the upstream closed the stream before any event")),
            }
        }
    }

    /// Pins a continuable response before its id can reach the client. A failed pin write is
    /// logged: the response is still delivered, it just cannot be continued.
    /// What pinning this frame needs, if it is the `response.created` of a continuable response.
    #[allow(clippy::type_complexity)]
    fn pin_job(
        &self,
        frame: &SseFrame,
    ) -> Option<(Arc<dyn crate::coordination::ContinuationPins>, String, crate::coordination::ContinuationPin, Duration)>
    {
        let pin = self.pin.as_ref()?;
        if kind_of(frame) != EventKind::Created {
            return None;
        }
        let id = frame.data().and_then(|d| read_facts(&d).response_id)?;
        let record = super::continuation::pin_for(&pin.key, pin.provider, self.account, &id);
        Some((pin.pins.clone(), id, record, pin.ttl))
    }

    /// The response id, once the upstream announced it.
    pub fn response_id(&self) -> Option<&str> {
        self.facts.response_id.as_deref()
    }

    /// Whether the response ended in a state a later turn can continue (completed or
    /// incomplete), as opposed to failed or cut.
    pub fn continuable(&self) -> bool {
        matches!(self.facts.status.as_deref(), Some("completed" | "incomplete"))
    }

    /// The provider and account that served this response.
    pub fn served_by(&self) -> (crate::domain::ProviderKind, AccountId) {
        (self.provider, self.account)
    }

    /// Drives the whole stream and answers with the aggregated response object.
    pub async fn collect(mut self) -> NonStreamReply {
        let mut aggregator = Aggregator::new();
        loop {
            match next(&mut self.frames).await {
                Some(Ok(UpstreamEvent::Frame(frame))) => {
                    // The non-stream answer is committed when its terminal event arrives: from
                    // then on it will be delivered.
                    if matches!(kind_of(&frame), EventKind::Completed | EventKind::Incomplete) {
                        self.record.commit_at_terminal();
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
            let message = self
                .facts
                .error_message
                .clone()
                .unwrap_or_else(|| "The upstream failed to generate a response.".to_owned());
            let mut error = ApiError::new(ErrorCode::UpstreamError, message);
            error.upstream_code = self.facts.error_code.clone().filter(|c| c.len() <= 64);
            return NonStreamReply::Err(error);
        }
        let body = Bytes::from(serde_json::to_vec(&response).unwrap_or_default());
        NonStreamReply::Ok { headers: self.headers("application/json"), body }
    }

    fn observe_quota(&self, facts: Box<crate::domain::QuotaFacts>) {
        self.record_queue_push(Observation::Quota { account: self.account, facts });
    }

    fn record_queue_push(&self, observation: Observation) {
        self.record.queue().push(observation);
    }

    /// Reads the facts of one frame and, on a terminal event, finishes the record.
    fn observe(&mut self, frame: &SseFrame) -> EventKind {
        let data = frame.data();
        let kind = kind_of(frame);
        if self.record.latency.first_event_ms.is_none() {
            self.record.latency.first_event_ms = Some(self.record.elapsed_ms());
        }
        if kind == EventKind::Content && !self.first_content_seen {
            self.first_content_seen = true;
            self.record.latency.first_token_ms = Some(self.record.elapsed_ms());
        }
        if kind.has_facts()
            && let Some(data) = &data
        {
            let facts = read_facts(data);
            merge(&mut self.facts, facts);
        }
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

    /// The one terminal observation, and the release of the slots (off the client's path).
    fn finish(&mut self, status: RequestStatus, error_code: Option<&str>) {
        if self.finished {
            return;
        }
        self.finished = true;
        let usage = self.facts.usage.as_ref().map(token_usage);
        let model = self.facts.model.clone().or(self.served_model.clone()).unwrap_or_else(|| self.model.clone());
        let cost = usage.as_ref().map(|u| self.prices.cost(&model, self.facts.service_tier.as_deref(), u));
        let outcome = Outcome {
            http_status: Some(200),
            error_code: error_code
                .map(str::to_owned)
                .or_else(|| (status != RequestStatus::Completed).then(|| self.facts.error_code.clone()).flatten()),
            usage,
            cost,
            service_tier: self.facts.service_tier.clone(),
            upstream_model: Some(model),
            client_response_id: self.facts.response_id.as_ref().map(|id| id.as_bytes().to_vec()),
        };
        let spend = outcome.usage.as_ref().map(|usage| Spend {
            client_key: self.record.client_key,
            period: self.record.spend_period,
            tokens: usage.total_tokens,
            cost: outcome.cost.unwrap_or_default(),
        });
        self.record.finish(status, outcome);
        if let Some(guard) = self.guard.take() {
            guard.release_later(None, spend);
        }
    }

    /// The client went away before the terminal event: a cancelled record that keeps what the
    /// client had received.
    fn finish_cancelled(&mut self) {
        self.finished = true;
        let received = self.handed_over || self.record.is_committed();
        let model = self.facts.model.clone().or(self.served_model.clone()).unwrap_or_else(|| self.model.clone());
        let outcome = Outcome {
            http_status: received.then_some(200),
            error_code: Some("client_disconnected".to_owned()),
            upstream_model: Some(model),
            client_response_id: self.facts.response_id.as_ref().map(|id| id.as_bytes().to_vec()),
            ..Outcome::default()
        };
        self.record.finish(RequestStatus::Cancelled, outcome);
        if let Some(guard) = self.guard.take() {
            guard.release_later(None, None);
        }
    }

    fn fail_before_commit(&mut self, message: &str) -> ApiError {
        tracing::warn!(request = %self.record.id, %message, "upstream stream failed before the commit");
        self.finished = true;
        self.record.finish(
            RequestStatus::Failed,
            Outcome { http_status: Some(502), error_code: Some("stream_interrupted".to_owned()), ..Outcome::default() },
        );
        if let Some(guard) = self.guard.take() {
            guard.release_later(None, None);
        }
        ApiError::new(ErrorCode::StreamInterrupted, "The upstream stream broke before the response started.")
    }

    /// After the commit: an in-stream error event, and the record ends incomplete.
    fn fail_after_commit(&mut self, failure: &StreamFailure) -> Bytes {
        tracing::warn!(request = %self.record.id, message = %failure.message, "upstream stream failed after the commit");
        let code = if failure.idle_timeout { ErrorCode::UpstreamTimeout } else { ErrorCode::StreamInterrupted };
        let error = ApiError::new(code, "The upstream stream ended before the response completed.");
        self.finish(RequestStatus::Incomplete, Some(code.code()));
        SseFrame::from_event("error", &error.stream_event(None)).raw
    }

    /// Hands one frame to the client: commit first (observed, with the response id the frame
    /// may have announced), then its bytes.
    fn deliver(&mut self, frame: SseFrame) -> Bytes {
        if !self.record.is_committed() && kind_of(&frame).is_terminal() {
            // The first frame ends the response: its terminal update carries the commit.
            self.record.commit_at_terminal();
        }
        self.observe(&frame);
        self.record.commit(self.facts.response_id.as_deref());
        frame.raw
    }
}

impl Drop for Delivery {
    fn drop(&mut self) {
        if !self.finished {
            self.finish_cancelled();
        }
    }
}

/// The event kind of a frame: its `event:` name, else the JSON `type` of its data.
fn kind_of(frame: &SseFrame) -> EventKind {
    match frame.event_name() {
        Some(name) => EventKind::from_type(name),
        None => match frame.data() {
            Some(data) => event_type(&data).map_or(EventKind::Other, |t| EventKind::from_type(&t)),
            None => EventKind::Comment,
        },
    }
}

fn merge(into: &mut EventFacts, from: EventFacts) {
    into.response_id = from.response_id.or(into.response_id.take());
    into.status = from.status.or(into.status.take());
    into.model = from.model.or(into.model.take());
    into.service_tier = from.service_tier.or(into.service_tier.take());
    into.usage = from.usage.or(into.usage.take());
    into.error_code = from.error_code.or(into.error_code.take());
    into.error_message = from.error_message.or(into.error_message.take());
    into.incomplete_reason = from.incomplete_reason.or(into.incomplete_reason.take());
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

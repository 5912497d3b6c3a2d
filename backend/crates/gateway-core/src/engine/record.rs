//! What the engine knows about one request while it runs, and the observations it enqueues:
//! the start (before anything can reach upstream), a progress update before every further
//! attempt, and exactly one terminal update. Dropping an unfinished record (the client went away,
//! the task was cancelled) records it as cancelled.

use std::time::Instant;

use time::OffsetDateTime;

use crate::coordination::SpendPeriod;
use crate::domain::{
    AccountId, Attempt, AttemptOutcome, ClientKeyId, LatencySplits, ProviderKind, RequestId, RequestOutcome,
    RequestStart, RequestStatus, RequestUpdate, RoutingSnapshot, Runner, SendState, Transport,
};
use crate::observation::{Observation, ObservationQueue};
use crate::telemetry::{FinishedRequest, Telemetry};

/// Where a request's metrics go and how they are labelled (resolved before the start, so the
/// terminal record allocates nothing for them).
#[derive(Clone)]
pub struct RecordTelemetry {
    pub telemetry: Telemetry,
    /// The model label's index ([`Telemetry::model_index`]).
    pub model: u16,
    /// When the request reached the engine (the gateway-overhead and latency clock).
    pub arrived: Instant,
}

pub struct RequestRecord {
    pub id: RequestId,
    pub client_key: ClientKeyId,
    /// The UTC day and month the request's spend counts towards (fixed at its start).
    pub spend_period: SpendPeriod,
    started: Instant,
    attempts: Vec<Attempt>,
    watermark: SendState,
    pub provider: Option<ProviderKind>,
    pub account: Option<AccountId>,
    committed_at: Option<OffsetDateTime>,
    pub latency: LatencySplits,
    queue: ObservationQueue,
    finished: bool,
    route: &'static str,
    transport: Transport,
    metrics: RecordTelemetry,
    /// Arrival to the first upstream send, and to the downstream commit.
    first_send: Option<std::time::Duration>,
    first_byte: Option<std::time::Duration>,
}

impl RequestRecord {
    /// Enqueues the start observation.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        queue: ObservationQueue,
        id: RequestId,
        client_key: ClientKeyId,
        model: &str,
        operation: &'static str,
        transport: Transport,
        stream: bool,
        routing: RoutingSnapshot,
        deadline: std::time::Duration,
        runner: Option<Runner>,
        metrics: RecordTelemetry,
    ) -> Self {
        let now = OffsetDateTime::now_utc();
        queue.push(Observation::Start(Box::new(RequestStart {
            id,
            client_key_id: Some(client_key),
            requested_model: model.to_owned(),
            operation: operation.to_owned(),
            transport,
            stream,
            routing,
            started_at: now,
            deadline_at: now + deadline,
            runner,
        })));
        Self {
            id,
            client_key,
            spend_period: SpendPeriod::at(now),
            started: Instant::now(),
            attempts: Vec::new(),
            watermark: SendState::NotSent,
            provider: None,
            account: None,
            committed_at: None,
            latency: LatencySplits::default(),
            queue,
            finished: false,
            route: operation,
            transport,
            metrics,
            first_send: None,
            first_byte: None,
        }
    }

    pub fn queue(&self) -> &ObservationQueue {
        &self.queue
    }

    pub fn watermark(&self) -> SendState {
        self.watermark
    }

    pub fn elapsed_ms(&self) -> u32 {
        u32::try_from(self.started.elapsed().as_millis()).unwrap_or(u32::MAX)
    }

    pub fn attempt_count(&self) -> u32 {
        self.attempts.len() as u32
    }

    /// Records that an attempt is about to be sent. Attempts after the first are enqueued as a
    /// progress update before the call (invariant 2); the first is covered by the start.
    pub fn begin_attempt(&mut self, provider: ProviderKind, account: AccountId) -> u32 {
        let number = self.attempts.len() as u32 + 1;
        if self.first_send.is_none() {
            self.first_send = Some(self.metrics.arrived.elapsed());
        }
        self.attempts.push(Attempt {
            number,
            provider,
            account,
            started_at: OffsetDateTime::now_utc(),
            duration_ms: None,
            outcome: AttemptOutcome::Started,
            http_status: None,
            send_state: SendState::NotSent,
        });
        self.provider = Some(provider);
        self.account = Some(account);
        if number > 1 {
            let mut update = RequestUpdate::new(self.id, RequestStatus::Running, self.watermark);
            update.provider = Some(provider);
            update.account_id = Some(account);
            update.attempts = Some(self.attempts.clone());
            self.queue.push(Observation::Update(Box::new(update)));
        }
        number
    }

    /// Closes the current attempt with its outcome and raises the watermark.
    pub fn end_attempt(&mut self, outcome: AttemptOutcome, http_status: Option<u16>, send_state: SendState) {
        self.watermark = self.watermark.raise(send_state);
        if let Some(attempt) = self.attempts.last_mut() {
            let elapsed = (OffsetDateTime::now_utc() - attempt.started_at).whole_milliseconds();
            attempt.duration_ms = Some(u64::try_from(elapsed).unwrap_or(0));
            attempt.outcome = outcome;
            attempt.http_status = http_status;
            attempt.send_state = send_state;
            self.metrics.telemetry.attempt_finished(attempt.provider, outcome.as_str());
        }
    }

    /// Crosses the downstream commit barrier (in memory, before the first byte is written) and
    /// enqueues what the client is about to receive — the commit time, the status line, the
    /// response id and the send state — so that a crash from here on still finds it in the row.
    pub fn commit(&mut self, response_id: Option<&str>) {
        if self.committed_at.is_some() {
            return;
        }
        let now = OffsetDateTime::now_utc();
        self.committed_at = Some(now);
        self.first_byte = Some(self.metrics.arrived.elapsed());
        let mut update = RequestUpdate::new(self.id, RequestStatus::Running, self.watermark);
        update.provider = self.provider;
        update.account_id = self.account;
        update.attempts = Some(self.attempts.clone());
        update.outcome =
            RequestOutcome { http_status: Some(200), ..RequestOutcome::default() }.with_response_id(response_id);
        update.downstream_committed_at = Some(now);
        update.latency = self.latency;
        self.queue.push(Observation::Update(Box::new(update)));
    }

    /// Crosses the commit barrier without an observation of its own: a non-stream answer,
    /// committed at its terminal event, whose terminal update follows at once.
    pub fn commit_at_terminal(&mut self) {
        if self.committed_at.is_none() {
            self.committed_at = Some(OffsetDateTime::now_utc());
            self.first_byte = Some(self.metrics.arrived.elapsed());
        }
    }

    pub fn is_committed(&self) -> bool {
        self.committed_at.is_some()
    }

    /// Enqueues the one terminal update: the attempts and `outcome`, the facts beyond them.
    pub fn finish(&mut self, status: RequestStatus, outcome: RequestOutcome) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.latency.total_ms = Some(self.elapsed_ms());
        self.metrics.telemetry.request_finished(&FinishedRequest {
            route: self.route,
            transport: self.transport,
            model: self.metrics.model,
            provider: self.provider,
            status,
            http_status: outcome.http_status,
            total: self.metrics.arrived.elapsed(),
            first_byte: self.first_byte,
            overhead: self.first_send,
        });
        let mut update = RequestUpdate::new(self.id, status, self.watermark);
        update.provider = self.provider;
        update.account_id = self.account;
        update.attempts = Some(self.attempts.clone());
        update.outcome = outcome;
        update.downstream_committed_at = self.committed_at;
        update.finished_at = Some(OffsetDateTime::now_utc());
        update.latency = self.latency;
        self.queue.push(Observation::Update(Box::new(update)));
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }
}

impl Drop for RequestRecord {
    fn drop(&mut self) {
        if !self.finished {
            self.finish(RequestStatus::Cancelled, RequestOutcome::error(None, "client_disconnected"));
        }
    }
}

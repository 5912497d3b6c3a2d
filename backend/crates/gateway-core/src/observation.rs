//! Observations: what happened to a request, queued in process and written by a flush worker.
//!
//! The queue is bounded by count and by bytes. Enqueueing never waits; a full queue, a stopped
//! worker or a write the store refuses counts and drops the observation and never changes what
//! the client receives (invariant 2: the database projection is recoverable, never a
//! precondition). A write that fails because the store is unavailable is retried with backoff
//! while its bytes stay in the budget, so a short outage loses nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::domain::{AccountId, OpsEvent, QuotaFacts, RequestStart, RequestUpdate};
use crate::ports::{OpsEventLog, RequestLog, StorageError, StorageErrorKind};

/// One thing to record.
#[derive(Debug, Clone)]
pub enum Observation {
    Start(Box<RequestStart>),
    Update(Box<RequestUpdate>),
    Ops(Box<OpsEvent>),
    Quota { account: AccountId, facts: Box<QuotaFacts> },
}

impl Observation {
    /// An estimate of the memory the observation holds, for the byte budget.
    fn weight(&self) -> usize {
        match self {
            Self::Start(start) => 256 + start.requested_model.len(),
            // An attempt record is about 160 bytes of JSON; no need to serialise to weigh it.
            Self::Update(update) => 384 + update.attempts.as_ref().map_or(0, |a| a.len() * 160),
            Self::Ops(event) => 256 + event.message.len(),
            // A window is about 96 bytes once stored as JSON.
            Self::Quota { facts, .. } => 128 + facts.windows.len() * 96,
        }
    }
}

/// Counters exposed on `/metrics` and the admin API.
#[derive(Debug, Default)]
pub struct ObservationStats {
    pub enqueued: AtomicU64,
    pub dropped_full: AtomicU64,
    pub dropped_write: AtomicU64,
    pub written: AtomicU64,
    pub queued_bytes: AtomicUsize,
    /// Batch writes the store failed (each retry of an unavailable store counts once).
    pub write_errors: AtomicU64,
}

/// The newest quota facts per account since the last flush. Every response carries quota
/// headers, so quota observations are coalesced here instead of queued: a burst of requests on
/// one account costs one write, and the queue carries only request observations.
type QuotaBoard = Arc<std::sync::Mutex<std::collections::HashMap<AccountId, QuotaFacts>>>;

/// The sending side, cloned into every request.
#[derive(Clone)]
pub struct ObservationQueue {
    sender: mpsc::Sender<(Observation, usize)>,
    stats: Arc<ObservationStats>,
    byte_budget: usize,
    quotas: QuotaBoard,
}

/// The receiving side, owned by the flush worker.
pub struct ObservationReceiver {
    receiver: mpsc::Receiver<(Observation, usize)>,
    stats: Arc<ObservationStats>,
    quotas: QuotaBoard,
}

/// Creates a queue holding at most `capacity` observations and `byte_budget` bytes.
pub fn observation_queue(capacity: usize, byte_budget: usize) -> (ObservationQueue, ObservationReceiver) {
    let (sender, receiver) = mpsc::channel(capacity.max(1));
    let stats = Arc::new(ObservationStats::default());
    let quotas = QuotaBoard::default();
    (
        ObservationQueue { sender, stats: stats.clone(), byte_budget, quotas: quotas.clone() },
        ObservationReceiver { receiver, stats, quotas },
    )
}

impl ObservationQueue {
    /// Enqueues without waiting; returns `false` when the observation was dropped. Quota
    /// observations are coalesced per account (the newest wins) and not counted.
    pub fn push(&self, observation: Observation) -> bool {
        if let Observation::Quota { account, facts } = observation {
            self.quotas.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(account, *facts);
            return true;
        }
        let weight = observation.weight();
        let queued = self.stats.queued_bytes.fetch_add(weight, Ordering::Relaxed);
        if queued + weight > self.byte_budget {
            self.stats.queued_bytes.fetch_sub(weight, Ordering::Relaxed);
            self.stats.dropped_full.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        match self.sender.try_send((observation, weight)) {
            Ok(()) => {
                self.stats.enqueued.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(_) => {
                self.stats.queued_bytes.fetch_sub(weight, Ordering::Relaxed);
                self.stats.dropped_full.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    pub fn stats(&self) -> &Arc<ObservationStats> {
        &self.stats
    }
}

/// Where the flush worker writes.
#[derive(Clone)]
pub struct ObservationSinks {
    pub requests: Arc<dyn RequestLog>,
    pub ops: Arc<dyn OpsEventLog>,
    pub quota: Arc<dyn QuotaWriter>,
}

/// Writes quota observations (fencing and merging are the implementation's business).
#[async_trait::async_trait]
pub trait QuotaWriter: Send + Sync {
    async fn write(&self, account: AccountId, facts: QuotaFacts);
}

/// First wait before a failed batch is written again; doubles up to [`RETRY_MAX`].
pub const RETRY_INITIAL: Duration = Duration::from_millis(100);
/// Longest wait between two tries of a failed batch.
pub const RETRY_MAX: Duration = Duration::from_secs(2);

impl ObservationReceiver {
    /// Drains the queue in batches until the sender side is closed and empty, or `stop` fires
    /// (then what is left is written within `drain_budget` and the rest counted as dropped).
    ///
    /// After the first observation of a batch arrives the worker lingers up to `linger` for more,
    /// so a trickle of requests costs one database write per `linger` instead of one each.
    ///
    /// A batch whose write fails transiently (the store is unavailable) is written again with
    /// backoff ([`RETRY_INITIAL`] doubling to [`RETRY_MAX`]) until it succeeds — or, once `stop`
    /// fired, until the drain budget runs out. Meanwhile its bytes stay in the queue's byte
    /// budget, so new observations queue behind it within the budget and are counted and
    /// dropped beyond it. A write the store refuses for good (a constraint) is dropped at once.
    pub async fn run(
        mut self,
        sinks: ObservationSinks,
        batch: usize,
        linger: Duration,
        stop: tokio_util::sync::CancellationToken,
        drain_budget: Duration,
    ) {
        let mut writer = BatchWriter { sinks, stats: self.stats.clone(), stop, drain_budget, drain_deadline: None };
        let mut buffer = Vec::with_capacity(batch);
        loop {
            tokio::select! {
                biased;
                received = self.receiver.recv_many(&mut buffer, batch) => {
                    if received == 0 {
                        return;
                    }
                    let until = tokio::time::Instant::now() + linger;
                    while buffer.len() < batch && !linger.is_zero() {
                        let room = batch - buffer.len();
                        match tokio::time::timeout_at(until, self.receiver.recv_many(&mut buffer, room)).await {
                            Ok(0) | Err(_) => break,
                            Ok(_) => {}
                        }
                    }
                    self.flush(&mut writer, &mut buffer).await;
                }
                () = writer.stop.cancelled() => break,
            }
        }
        let deadline = writer.drain_deadline();
        self.receiver.close();
        while tokio::time::Instant::now() < deadline {
            let received = match tokio::time::timeout_at(deadline, self.receiver.recv_many(&mut buffer, batch)).await {
                Ok(n) => n,
                Err(_) => break,
            };
            if received == 0 {
                return;
            }
            self.flush(&mut writer, &mut buffer).await;
        }
        let mut left = 0u64;
        while let Ok((_, weight)) = self.receiver.try_recv() {
            self.stats.queued_bytes.fetch_sub(weight, Ordering::Relaxed);
            left += 1;
        }
        for (_, weight) in buffer.drain(..) {
            self.stats.queued_bytes.fetch_sub(weight, Ordering::Relaxed);
            left += 1;
        }
        if left > 0 {
            tracing::warn!(dropped = left, "observations left when the drain budget ran out are dropped");
        }
        self.stats.dropped_write.fetch_add(left, Ordering::Relaxed);
    }

    async fn flush(&self, writer: &mut BatchWriter, buffer: &mut Vec<(Observation, usize)>) {
        let mut batch = Batch::default();
        for (observation, weight) in buffer.drain(..) {
            batch.bytes += weight;
            match observation {
                Observation::Start(start) => batch.starts.push(*start),
                Observation::Update(update) => batch.updates.push(*update),
                Observation::Ops(event) => batch.ops.push(*event),
                Observation::Quota { account, facts } => batch.quotas.push((account, *facts)),
            }
        }
        let latest = std::mem::take(&mut *self.quotas.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        for (account, facts) in latest.into_iter().chain(std::mem::take(&mut batch.quotas)) {
            writer.sinks.quota.write(account, facts).await;
        }
        writer.write(batch).await;
    }
}

/// One flush's request and ops observations, written until done (see [`ObservationReceiver::run`]).
#[derive(Default)]
struct Batch {
    starts: Vec<RequestStart>,
    updates: Vec<RequestUpdate>,
    ops: Vec<OpsEvent>,
    quotas: Vec<(AccountId, QuotaFacts)>,
    /// Their weight in the queue's byte budget, released when the batch is written or dropped.
    bytes: usize,
}

struct BatchWriter {
    sinks: ObservationSinks,
    stats: Arc<ObservationStats>,
    stop: tokio_util::sync::CancellationToken,
    drain_budget: Duration,
    drain_deadline: Option<tokio::time::Instant>,
}

impl BatchWriter {
    /// The end of the drain budget, counted from the first time the stop was seen.
    fn drain_deadline(&mut self) -> tokio::time::Instant {
        *self.drain_deadline.get_or_insert_with(|| tokio::time::Instant::now() + self.drain_budget)
    }

    /// Writes the batch's requests (starts before the updates of the same batch: one call, so
    /// the store can write a request that started and ended in it as one row) and ops events,
    /// retrying what failed transiently.
    async fn write(&mut self, mut batch: Batch) {
        let requests = batch.starts.len() + batch.updates.len();
        let mut requests_left = requests > 0;
        let mut ops_left = !batch.ops.is_empty();
        let mut backoff = RETRY_INITIAL;
        let mut tries = 0u32;
        loop {
            tries += 1;
            if requests_left {
                match self.sinks.requests.record_batch(&batch.starts, &batch.updates).await {
                    Ok(_) => {
                        requests_left = false;
                        self.settle(requests, true, tries);
                    }
                    Err(error) if error.kind() == StorageErrorKind::Unavailable => {
                        self.note_retry(requests, tries, &error);
                    }
                    Err(error) => {
                        tracing::warn!(%error, dropped = requests, "request observations refused by the store");
                        self.stats.write_errors.fetch_add(1, Ordering::Relaxed);
                        requests_left = false;
                        self.settle(requests, false, tries);
                    }
                }
            }
            if ops_left {
                match self.sinks.ops.record_ops_events(&batch.ops).await {
                    Ok(_) => {
                        ops_left = false;
                        self.settle(batch.ops.len(), true, tries);
                    }
                    Err(error) if error.kind() == StorageErrorKind::Unavailable => {
                        self.note_retry(batch.ops.len(), tries, &error);
                    }
                    Err(error) => {
                        tracing::warn!(%error, dropped = batch.ops.len(), "ops events refused by the store");
                        self.stats.write_errors.fetch_add(1, Ordering::Relaxed);
                        ops_left = false;
                        self.settle(batch.ops.len(), false, tries);
                    }
                }
            }
            if !requests_left && !ops_left {
                break;
            }
            if !self.wait_before_retry(backoff).await {
                let left = if requests_left { requests } else { 0 } + if ops_left { batch.ops.len() } else { 0 };
                tracing::warn!(dropped = left, tries, "observation writes still failing at the drain deadline");
                self.stats.dropped_write.fetch_add(left as u64, Ordering::Relaxed);
                break;
            }
            backoff = (backoff * 2).min(RETRY_MAX);
        }
        self.stats.queued_bytes.fetch_sub(std::mem::take(&mut batch.bytes), Ordering::Relaxed);
    }

    /// Waits `backoff` (cut short by the stop signal); `false` when the drain deadline passed.
    async fn wait_before_retry(&mut self, backoff: Duration) -> bool {
        if !self.stop.is_cancelled() {
            tokio::select! {
                () = tokio::time::sleep(backoff) => {}
                () = self.stop.cancelled() => {}
            }
            if !self.stop.is_cancelled() {
                return true;
            }
        }
        let deadline = self.drain_deadline();
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return false;
        }
        tokio::time::sleep_until(deadline.min(now + backoff)).await;
        tokio::time::Instant::now() < deadline
    }

    fn note_retry(&self, n: usize, tries: u32, error: &StorageError) {
        self.stats.write_errors.fetch_add(1, Ordering::Relaxed);
        if tries == 1 || tries.is_power_of_two() {
            tracing::warn!(%error, observations = n, tries, "observation write failed; retrying with backoff");
        }
    }

    fn settle(&self, n: usize, ok: bool, tries: u32) {
        if ok && tries > 1 {
            tracing::info!(observations = n, tries, "observation write succeeded after retries");
        }
        let counter = if ok { &self.stats.written } else { &self.stats.dropped_write };
        counter.fetch_add(n as u64, Ordering::Relaxed);
    }
}

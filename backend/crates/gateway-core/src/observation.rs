//! Observations: what happened to a request, queued in process and written by a flush worker.
//!
//! The queue is bounded by count and by bytes. Enqueueing never waits; a full queue, a stopped
//! worker or a failed write counts and drops the observation and never changes what the client
//! receives (invariant 2: the database projection is recoverable, never a precondition).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::domain::{AccountId, OpsEvent, QuotaFacts, RequestStart, RequestUpdate};
use crate::ports::{OpsEventLog, RequestLog};

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
            Self::Update(update) => {
                384 + update.attempts.as_ref().and_then(|a| a.as_array()).map_or(0, |a| a.len() * 160)
            }
            Self::Ops(event) => 256 + event.message.len(),
            Self::Quota { facts, .. } => 128 + facts.windows.to_string().len(),
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

impl ObservationReceiver {
    /// Drains the queue in batches until the sender side is closed and empty, or `stop` fires
    /// (then what is left is written within `drain_budget` and the rest counted as dropped).
    ///
    /// After the first observation of a batch arrives the worker lingers up to `linger` for more,
    /// so a trickle of requests costs one database write per `linger` instead of one each.
    pub async fn run(
        mut self,
        sinks: ObservationSinks,
        batch: usize,
        linger: Duration,
        stop: tokio_util::sync::CancellationToken,
        drain_budget: Duration,
    ) {
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
                    self.flush(&sinks, &mut buffer).await;
                }
                () = stop.cancelled() => break,
            }
        }
        let deadline = tokio::time::Instant::now() + drain_budget;
        self.receiver.close();
        while tokio::time::Instant::now() < deadline {
            let received = match tokio::time::timeout_at(deadline, self.receiver.recv_many(&mut buffer, batch)).await {
                Ok(n) => n,
                Err(_) => break,
            };
            if received == 0 {
                return;
            }
            self.flush(&sinks, &mut buffer).await;
        }
        let mut left = 0u64;
        while let Ok((_, weight)) = self.receiver.try_recv() {
            self.stats.queued_bytes.fetch_sub(weight, Ordering::Relaxed);
            left += 1;
        }
        left += buffer.len() as u64;
        self.stats.dropped_write.fetch_add(left, Ordering::Relaxed);
    }

    async fn flush(&self, sinks: &ObservationSinks, buffer: &mut Vec<(Observation, usize)>) {
        let mut starts = Vec::new();
        let mut updates = Vec::new();
        let mut ops = Vec::new();
        let mut quotas = Vec::new();
        let mut bytes = 0;
        for (observation, weight) in buffer.drain(..) {
            bytes += weight;
            match observation {
                Observation::Start(start) => starts.push(*start),
                Observation::Update(update) => updates.push(*update),
                Observation::Ops(event) => ops.push(*event),
                Observation::Quota { account, facts } => quotas.push((account, *facts)),
            }
        }
        self.stats.queued_bytes.fetch_sub(bytes, Ordering::Relaxed);
        // Starts before the updates of the same batch (an update needs its row): one call, so
        // the store can write a request that started and ended in this batch as one row.
        let requests = starts.len() + updates.len();
        let written = requests == 0 || sinks.requests.record_batch(&starts, &updates).await.is_ok();
        self.count(requests, written);
        self.count(ops.len(), ops.is_empty() || sinks.ops.record_ops_events(&ops).await.is_ok());
        let latest = std::mem::take(&mut *self.quotas.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        for (account, facts) in latest.into_iter().chain(quotas) {
            sinks.quota.write(account, facts).await;
        }
    }

    fn count(&self, n: usize, ok: bool) {
        if n == 0 {
            return;
        }
        if !ok {
            tracing::warn!(dropped = n, "observation write failed; the observations are dropped");
        }
        let counter = if ok { &self.stats.written } else { &self.stats.dropped_write };
        counter.fetch_add(n as u64, Ordering::Relaxed);
    }
}

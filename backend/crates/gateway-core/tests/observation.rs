use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use gateway_core::domain::{
    AccountId, BootId, ModelRequestRecord, OpsEvent, OpsLevel, QuotaFacts, RequestId, RequestStart, RequestUpdate,
    RoutingSnapshot, Transport,
};
use gateway_core::observation::{Observation, ObservationSinks, ObservationStats, QuotaWriter, observation_queue};
use gateway_core::ports::{ConstraintKind, OpsEventLog, RequestLog, StorageError};
use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;

fn event() -> Observation {
    Observation::Ops(Box::new(OpsEvent {
        occurred_at: time::OffsetDateTime::now_utc(),
        level: OpsLevel::Info,
        kind: "test.event".to_owned(),
        provider: None,
        account_id: None,
        request_id: None,
        message: "m".to_owned(),
        details: serde_json::json!({}),
    }))
}

#[test]
fn a_full_queue_counts_and_drops_instead_of_waiting() {
    let (queue, _receiver) = observation_queue(2, 1 << 20);
    assert!(queue.push(event()));
    assert!(queue.push(event()));
    assert!(!queue.push(event()));
    assert_eq!(queue.stats().enqueued.load(Ordering::Relaxed), 2);
    assert_eq!(queue.stats().dropped_full.load(Ordering::Relaxed), 1);
}

#[test]
fn the_byte_budget_bounds_the_queue_too() {
    let (queue, _receiver) = observation_queue(1000, 300);
    assert!(queue.push(event()));
    assert!(!queue.push(event()), "a second observation exceeds 300 bytes");
    assert_eq!(queue.stats().dropped_full.load(Ordering::Relaxed), 1);
}

#[test]
fn quota_observations_are_coalesced_not_queued() {
    let (queue, _receiver) = observation_queue(1, 300);
    for _ in 0..10 {
        assert!(queue.push(Observation::Quota { account: AccountId(1), facts: Box::new(QuotaFacts::default()) }));
    }
    assert_eq!(queue.stats().enqueued.load(Ordering::Relaxed), 0);
    assert!(queue.push(event()), "the queue still has room for a request observation");
}

/// A request log that fails its first `failures` writes with `kind`, then stores the starts.
struct FlakyLog {
    failures: std::sync::atomic::AtomicU32,
    transient: bool,
    calls: std::sync::atomic::AtomicU32,
    stored: std::sync::Mutex<Vec<RequestId>>,
}

impl FlakyLog {
    fn new(failures: u32, transient: bool) -> Arc<Self> {
        Arc::new(Self { failures: failures.into(), transient, calls: 0.into(), stored: Default::default() })
    }

    fn stored(&self) -> usize {
        self.stored.lock().expect("lock").len()
    }

    fn calls(&self) -> u32 {
        self.calls.load(Ordering::SeqCst)
    }

    fn fail(&self) -> Result<(), StorageError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let left = self.failures.load(Ordering::SeqCst);
        if left == 0 {
            return Ok(());
        }
        self.failures.store(left - 1, Ordering::SeqCst);
        Err(if self.transient {
            StorageError::Unavailable("connection reset".to_owned())
        } else {
            StorageError::Constraint { kind: ConstraintKind::Check, constraint: "model_requests_x".to_owned() }
        })
    }
}

#[async_trait::async_trait]
impl RequestLog for FlakyLog {
    async fn record_starts(&self, starts: &[RequestStart]) -> Result<u64, StorageError> {
        self.fail()?;
        self.stored.lock().expect("lock").extend(starts.iter().map(|s| s.id));
        Ok(starts.len() as u64)
    }

    async fn record_updates(&self, _updates: &[RequestUpdate]) -> Result<u64, StorageError> {
        Ok(0)
    }

    async fn recover_stale(&self, _now: OffsetDateTime, _limit: u32) -> Result<Vec<RequestId>, StorageError> {
        Ok(Vec::new())
    }

    async fn running_boots(&self, _limit: u32) -> Result<Vec<BootId>, StorageError> {
        Ok(Vec::new())
    }

    async fn recover_boot(
        &self,
        _boot: BootId,
        _now: OffsetDateTime,
        _limit: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        Ok(Vec::new())
    }

    async fn running_boots_of(
        &self,
        _replica: &gateway_core::domain::ReplicaName,
        _limit: u32,
    ) -> Result<Vec<BootId>, StorageError> {
        Ok(Vec::new())
    }

    async fn recover_restarted_boot(
        &self,
        _replica: &gateway_core::domain::ReplicaName,
        _boot: BootId,
        _now: OffsetDateTime,
        _limit: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        Ok(Vec::new())
    }

    async fn delete_requests_before(&self, _cutoff: OffsetDateTime, _limit: u32) -> Result<u64, StorageError> {
        Ok(0)
    }

    async fn get_request(&self, id: RequestId) -> Result<ModelRequestRecord, StorageError> {
        Err(StorageError::not_found("request", id))
    }
}

struct NoOps;

#[async_trait::async_trait]
impl OpsEventLog for NoOps {
    async fn record_ops_events(&self, events: &[OpsEvent]) -> Result<u64, StorageError> {
        Ok(events.len() as u64)
    }

    async fn delete_ops_events_before(&self, _cutoff: OffsetDateTime, _limit: u32) -> Result<u64, StorageError> {
        Ok(0)
    }
}

struct NoQuota;

#[async_trait::async_trait]
impl QuotaWriter for NoQuota {
    async fn write(&self, _account: AccountId, _facts: QuotaFacts) {}
}

fn start() -> Observation {
    let now = OffsetDateTime::now_utc();
    Observation::Start(Box::new(RequestStart {
        id: RequestId::new(),
        client_key_id: None,
        requested_model: "gpt-5".to_owned(),
        operation: "responses.create".to_owned(),
        transport: Transport::Http,
        stream: true,
        routing: RoutingSnapshot::All,
        started_at: now,
        deadline_at: now + time::Duration::hours(1),
        runner: None,
    }))
}

/// Runs a flush worker over `log` with 10 starts queued; returns the stats and the stop token.
fn flush_ten(log: Arc<FlakyLog>) -> (Arc<ObservationStats>, CancellationToken, tokio::task::JoinHandle<()>) {
    let (queue, receiver) = observation_queue(100, 1 << 20);
    for _ in 0..10 {
        assert!(queue.push(start()));
    }
    let sinks = ObservationSinks { requests: log, ops: Arc::new(NoOps), quota: Arc::new(NoQuota) };
    let stop = CancellationToken::new();
    let worker =
        tokio::spawn(receiver.run(sinks, 64, Duration::from_millis(5), stop.clone(), Duration::from_millis(200)));
    (queue.stats().clone(), stop, worker)
}

async fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !condition() {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_batch_is_retried_with_backoff_before_anything_is_dropped() {
    let log = FlakyLog::new(3, true);
    let (stats, stop, worker) = flush_ten(log.clone());
    wait_for("the batch to be written after three failures", || log.stored() == 10).await;
    assert_eq!(stats.written.load(Ordering::Relaxed), 10);
    assert_eq!(stats.dropped_write.load(Ordering::Relaxed), 0, "nothing was dropped");
    assert_eq!(stats.write_errors.load(Ordering::Relaxed), 3, "each failed write counted");
    assert_eq!(stats.queued_bytes.load(Ordering::Relaxed), 0, "the retried batch left the byte budget");
    stop.cancel();
    worker.await.expect("the worker ends");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_batch_still_counts_against_the_byte_budget() {
    let log = FlakyLog::new(u32::MAX, true);
    let (queue, receiver) = observation_queue(100, 2000);
    let sinks = ObservationSinks { requests: log.clone(), ops: Arc::new(NoOps), quota: Arc::new(NoQuota) };
    let stop = CancellationToken::new();
    for _ in 0..5 {
        assert!(queue.push(start()));
    }
    let stats = queue.stats().clone();
    let worker =
        tokio::spawn(receiver.run(sinks, 64, Duration::from_millis(5), stop.clone(), Duration::from_millis(100)));
    // The worker takes the batch and keeps retrying it: its bytes stay accounted for, so the
    // queue refuses what would exceed the budget instead of growing without bound.
    wait_for("the batch to fail once", || log.calls() >= 1).await;
    let mut refused = 0;
    for _ in 0..10 {
        if !queue.push(start()) {
            refused += 1;
        }
    }
    assert!(refused >= 8, "the budget (2000 bytes ≈ 7 starts) still holds the retried batch: {refused} refused");
    assert_eq!(stats.dropped_full.load(Ordering::Relaxed), refused);
    stop.cancel();
    worker.await.expect("the worker ends");
    assert!(stats.dropped_write.load(Ordering::Relaxed) >= 5, "still failing at the drain deadline: counted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_the_store_refuses_for_good_is_dropped_and_counted() {
    let log = FlakyLog::new(1, false);
    let (stats, stop, worker) = flush_ten(log.clone());
    wait_for("the refused batch to be counted", || stats.dropped_write.load(Ordering::Relaxed) == 10).await;
    assert_eq!(log.stored(), 0);
    stop.cancel();
    worker.await.expect("the worker ends");
}

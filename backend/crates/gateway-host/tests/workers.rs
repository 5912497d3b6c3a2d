//! The worker runtime: restart after error and panic, health, bounded join.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use gateway_host::workers::WorkerState;
use gateway_host::{Worker, WorkerContext, WorkerError, WorkerRuntime};

/// Fails (by error or panic) `failures` times, then runs until stopped.
struct Flaky {
    name: &'static str,
    failures: u32,
    panic: bool,
    runs: Arc<AtomicU32>,
}

#[async_trait]
impl Worker for Flaky {
    fn name(&self) -> &str {
        self.name
    }

    async fn run(&self, ctx: WorkerContext) -> Result<(), WorkerError> {
        let run = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
        if run <= self.failures {
            if self.panic {
                panic!("flaky worker panics on run {run}");
            }
            return Err(format!("flaky worker fails on run {run}").into());
        }
        ctx.stopping().await;
        Ok(())
    }
}

/// Ignores the stop signal.
struct Stubborn;

#[async_trait]
impl Worker for Stubborn {
    fn name(&self) -> &str {
        "stubborn"
    }

    async fn run(&self, _ctx: WorkerContext) -> Result<(), WorkerError> {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok(())
    }
}

fn runtime() -> WorkerRuntime {
    WorkerRuntime::new(Duration::from_millis(5), Duration::from_millis(20))
}

#[tokio::test]
async fn a_panicking_worker_is_restarted_and_becomes_healthy() {
    let runs = Arc::new(AtomicU32::new(0));
    let mut workers = runtime();
    workers
        .register(Arc::new(Flaky { name: "flaky", failures: 3, panic: true, runs: runs.clone() }))
        .expect("register");
    let registry = workers.registry();
    workers.start();

    let status = test_support::wait_until("the fourth run", Duration::from_secs(5), || async {
        let status = registry.snapshot().into_iter().next()?;
        (runs.load(Ordering::SeqCst) == 4 && status.state == WorkerState::Running).then_some(status)
    })
    .await
    .expect("restarted");
    assert_eq!(status.restarts, 3);
    assert!(status.healthy);
    assert!(status.last_error.as_deref().unwrap_or_default().contains("panicked"));
    assert!(workers.shutdown(Duration::from_secs(5)).await.is_empty());
    assert_eq!(registry.snapshot()[0].state, WorkerState::Stopped);
}

#[tokio::test]
async fn a_failing_worker_reports_unhealthy_while_backing_off() {
    let runs = Arc::new(AtomicU32::new(0));
    let mut workers = WorkerRuntime::new(Duration::from_secs(3600), Duration::from_secs(3600));
    workers.register(Arc::new(Flaky { name: "failing", failures: 1, panic: false, runs })).expect("register");
    let registry = workers.registry();
    workers.start();
    let status = test_support::wait_until("backoff", Duration::from_secs(5), || async {
        registry.snapshot().into_iter().find(|s| s.state == WorkerState::BackingOff)
    })
    .await
    .expect("backing off");
    assert!(!status.healthy);
    assert!(status.last_error.as_deref().unwrap_or_default().contains("fails on run 1"));
    // Shutdown interrupts the backoff sleep at once.
    assert!(workers.shutdown(Duration::from_secs(5)).await.is_empty());
}

#[tokio::test]
async fn a_worker_that_ignores_the_stop_is_aborted_after_the_timeout() {
    let mut workers = runtime();
    workers.register(Arc::new(Stubborn)).expect("register");
    let registry = workers.registry();
    workers.start();
    let aborted = workers.shutdown(Duration::from_millis(100)).await;
    assert_eq!(aborted, vec!["stubborn".to_owned()]);
    assert_eq!(registry.snapshot()[0].state, WorkerState::Aborted);
}

#[tokio::test]
async fn names_must_be_unique() {
    let mut workers = runtime();
    workers.register(Arc::new(Stubborn)).expect("first");
    assert!(workers.register(Arc::new(Stubborn)).is_err());
}

#[tokio::test]
async fn periodic_work_ticks_until_stopped() {
    let ticks = Arc::new(AtomicU32::new(0));
    struct Ticker(Arc<AtomicU32>);
    #[async_trait]
    impl Worker for Ticker {
        fn name(&self) -> &str {
            "ticker"
        }
        async fn run(&self, ctx: WorkerContext) -> Result<(), WorkerError> {
            let ticks = self.0.clone();
            ctx.every("ticker", Duration::from_millis(5), || {
                let ticks = ticks.clone();
                async move {
                    ticks.fetch_add(1, Ordering::SeqCst);
                    Ok(())
                }
            })
            .await
        }
    }
    let mut workers = runtime();
    workers.register(Arc::new(Ticker(ticks.clone()))).expect("register");
    workers.start();
    test_support::wait_until("three ticks", Duration::from_secs(5), || async {
        (ticks.load(Ordering::SeqCst) >= 3).then_some(())
    })
    .await
    .expect("ticks");
    assert!(workers.shutdown(Duration::from_secs(5)).await.is_empty());
}

//! The worker runtime: named background workers, each supervised so that an error or a panic
//! restarts it after a growing backoff, with health reported to `/readyz` and a bounded join on
//! shutdown.
//!
//! A worker is a daemon: `run` loops until the context's token is cancelled. Periodic work is
//! written with [`WorkerContext::every`]. Bundles (store, core, admin, providers) contribute
//! workers; the composition root registers them.

mod registry;
mod supervisor;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

pub use registry::{WorkerRegistry, WorkerState, WorkerStatus};
use supervisor::{Backoff, supervise};

/// The error a worker run ends with; it is logged and the worker is restarted.
pub type WorkerError = Box<dyn std::error::Error + Send + Sync + 'static>;

#[async_trait]
pub trait Worker: Send + Sync + 'static {
    /// A stable name, unique within the process, used in logs and health.
    fn name(&self) -> &str;
    /// Runs until `ctx.stopping()` resolves. Returning `Ok` early ends the worker for good;
    /// an `Err` or a panic restarts it after a backoff.
    async fn run(&self, ctx: WorkerContext) -> Result<(), WorkerError>;
}

/// What a running worker gets from the runtime.
#[derive(Clone)]
pub struct WorkerContext {
    token: CancellationToken,
}

impl WorkerContext {
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }

    pub fn is_stopping(&self) -> bool {
        self.token.is_cancelled()
    }

    pub async fn stopping(&self) {
        self.token.cancelled().await;
    }

    /// Sleeps for `period`; returns `false` when the runtime is stopping instead.
    pub async fn sleep(&self, period: Duration) -> bool {
        tokio::select! {
            () = self.token.cancelled() => false,
            () = tokio::time::sleep(period) => true,
        }
    }

    /// Runs `tick` every `period` (the first time after one period) until stopping. A failing
    /// tick is logged and counted but does not stop the loop.
    pub async fn every<F, Fut>(&self, name: &str, period: Duration, mut tick: F) -> Result<(), WorkerError>
    where
        F: FnMut() -> Fut + Send,
        Fut: Future<Output = Result<(), WorkerError>> + Send,
    {
        let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = self.token.cancelled() => return Ok(()),
                _ = interval.tick() => {
                    if let Err(err) = tick().await {
                        tracing::warn!(worker = name, error = %err, "periodic tick failed");
                    }
                }
            }
        }
    }
}

/// The future a [`FnWorker`] runs.
pub type WorkerFuture = std::pin::Pin<Box<dyn Future<Output = Result<(), WorkerError>> + Send>>;

/// A worker made of a name and a function, for bundles that contribute simple loops.
pub struct FnWorker {
    name: String,
    run: Box<dyn Fn(WorkerContext) -> WorkerFuture + Send + Sync>,
}

impl FnWorker {
    /// A daemon: `run` loops until the context stops.
    pub fn daemon(name: &str, run: impl Fn(WorkerContext) -> WorkerFuture + Send + Sync + 'static) -> Arc<dyn Worker> {
        Arc::new(Self { name: name.to_owned(), run: Box::new(run) })
    }

    /// A periodic task: `tick` every `period` until stopping; a failed tick is logged.
    pub fn periodic(
        name: &str,
        period: Duration,
        tick: impl Fn() -> WorkerFuture + Send + Sync + 'static,
    ) -> Arc<dyn Worker> {
        let tick = Arc::new(tick);
        let worker_name = name.to_owned();
        Self::daemon(name, move |ctx| {
            let tick = tick.clone();
            let name = worker_name.clone();
            Box::pin(async move { ctx.every(&name, period, || tick()).await })
        })
    }
}

#[async_trait]
impl Worker for FnWorker {
    fn name(&self) -> &str {
        &self.name
    }

    async fn run(&self, ctx: WorkerContext) -> Result<(), WorkerError> {
        (self.run)(ctx).await
    }
}

/// Registration and supervision of the process's workers.
pub struct WorkerRuntime {
    registry: WorkerRegistry,
    token: CancellationToken,
    tasks: JoinSet<()>,
    backoff: Backoff,
    pending: Vec<Arc<dyn Worker>>,
}

impl WorkerRuntime {
    pub fn new(restart_backoff_initial: Duration, restart_backoff_max: Duration) -> Self {
        Self {
            registry: WorkerRegistry::default(),
            token: CancellationToken::new(),
            tasks: JoinSet::new(),
            backoff: Backoff { initial: restart_backoff_initial, max: restart_backoff_max },
            pending: Vec::new(),
        }
    }

    /// Adds a worker; names must be unique.
    pub fn register(&mut self, worker: Arc<dyn Worker>) -> Result<(), String> {
        let name = worker.name().to_owned();
        if name.is_empty() {
            return Err("a worker needs a name".to_owned());
        }
        if self.pending.iter().any(|w| w.name() == name) || self.registry.contains(&name) {
            return Err(format!("worker `{name}` is registered twice"));
        }
        self.pending.push(worker);
        Ok(())
    }

    /// Health of every worker, shared with `/readyz`.
    pub fn registry(&self) -> WorkerRegistry {
        self.registry.clone()
    }

    /// Starts every registered worker under supervision.
    pub fn start(&mut self) {
        for worker in self.pending.drain(..) {
            let status = self.registry.add(worker.name());
            let token = self.token.child_token();
            self.tasks.spawn(supervise(worker, status, token, self.backoff));
        }
    }

    /// Stops every worker and waits up to `timeout`; workers still running then are aborted.
    /// Returns the names of the aborted workers.
    pub async fn shutdown(mut self, timeout: Duration) -> Vec<String> {
        self.token.cancel();
        let joined = tokio::time::timeout(timeout, async { while self.tasks.join_next().await.is_some() {} }).await;
        if joined.is_ok() {
            return Vec::new();
        }
        self.tasks.abort_all();
        while self.tasks.join_next().await.is_some() {}
        let stuck = self.registry.mark_aborted();
        tracing::warn!(workers = ?stuck, "workers did not stop in time and were aborted");
        stuck
    }
}

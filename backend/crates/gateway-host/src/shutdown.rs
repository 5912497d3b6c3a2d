//! The shutdown signal: one cancellation token and one absolute deadline fixed when the signal
//! arrives (SIGINT or SIGTERM, or a programmatic trigger in tests).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

#[derive(Clone)]
pub struct Shutdown {
    token: CancellationToken,
    deadline: Arc<OnceLock<Instant>>,
    drain_timeout: Duration,
}

impl Shutdown {
    pub fn new(drain_timeout: Duration) -> Self {
        Self { token: CancellationToken::new(), deadline: Arc::new(OnceLock::new()), drain_timeout }
    }

    /// Starts the shutdown now; the first call fixes the deadline, later calls change nothing.
    pub fn trigger(&self) {
        let _ = self.deadline.set(Instant::now() + self.drain_timeout);
        self.token.cancel();
    }

    pub fn is_triggered(&self) -> bool {
        self.token.is_cancelled()
    }

    /// Resolves when the shutdown has started.
    pub async fn triggered(&self) {
        self.token.cancelled().await;
    }

    /// The absolute drain deadline; `None` until triggered.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline.get().copied()
    }

    /// A token cancelled with the shutdown, for tasks that only need to stop.
    pub fn token(&self) -> CancellationToken {
        self.token.clone()
    }

    /// Triggers the shutdown on the first SIGINT or SIGTERM. Runs until then.
    pub async fn listen_for_signals(self) {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            match signal(SignalKind::terminate()) {
                Ok(mut term) => {
                    tokio::select! {
                        _ = ctrl_c => tracing::info!(signal = "SIGINT", "shutdown requested"),
                        _ = term.recv() => tracing::info!(signal = "SIGTERM", "shutdown requested"),
                        _ = self.token.cancelled() => return,
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "cannot listen for SIGTERM; only SIGINT stops the process");
                    tokio::select! {
                        _ = ctrl_c => tracing::info!(signal = "SIGINT", "shutdown requested"),
                        _ = self.token.cancelled() => return,
                    }
                }
            }
        }
        #[cfg(not(unix))]
        {
            tokio::select! {
                _ = ctrl_c => tracing::info!(signal = "ctrl-c", "shutdown requested"),
                _ = self.token.cancelled() => return,
            }
        }
        self.trigger();
    }
}

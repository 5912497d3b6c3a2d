//! Supervision of one worker: run it in its own task, restart on error or panic with an
//! exponential backoff, stop on the token.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::registry::{StatusHandle, WorkerState};
use super::{Worker, WorkerContext};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Backoff {
    pub initial: Duration,
    pub max: Duration,
}

impl Backoff {
    /// Delay before restart number `restarts` (1-based): initial, ×2, ×4, … up to max.
    pub(crate) fn delay(&self, restarts: u32) -> Duration {
        let factor = 1u32.checked_shl(restarts.saturating_sub(1).min(16)).unwrap_or(u32::MAX);
        self.initial.saturating_mul(factor).min(self.max)
    }
}

pub(crate) async fn supervise(
    worker: Arc<dyn Worker>,
    status: StatusHandle,
    token: CancellationToken,
    backoff: Backoff,
) {
    let name = worker.name().to_owned();
    let mut restarts: u32 = 0;
    loop {
        status.update(|s| s.state = WorkerState::Running);
        let ctx = WorkerContext { token: token.clone() };
        let run = {
            let worker = Arc::clone(&worker);
            tokio::spawn(async move { worker.run(ctx).await })
        };
        // Aborting the supervisor (shutdown timeout) must also abort the run it owns.
        let abort_run = run.abort_handle();
        let _guard = AbortOnDrop(abort_run);
        let failure = match run.await {
            Ok(Ok(())) => {
                let state = if token.is_cancelled() { WorkerState::Stopped } else { WorkerState::Finished };
                status.update(|s| s.state = state);
                tracing::info!(worker = %name, ?state, "worker ended");
                return;
            }
            Ok(Err(err)) => err.to_string(),
            Err(join) if join.is_panic() => format!("panicked: {}", panic_message(join.into_panic())),
            Err(join) => format!("task ended: {join}"),
        };
        if token.is_cancelled() {
            status.update(|s| {
                s.state = WorkerState::Stopped;
                s.last_error = Some(failure.clone());
            });
            return;
        }
        restarts = restarts.saturating_add(1);
        let delay = backoff.delay(restarts);
        tracing::error!(worker = %name, error = %failure, restarts, delay_ms = delay.as_millis() as u64, "worker failed; restarting after backoff");
        status.update(|s| {
            s.state = WorkerState::BackingOff;
            s.restarts = restarts;
            s.last_error = Some(failure);
        });
        tokio::select! {
            () = token.cancelled() => {
                status.update(|s| s.state = WorkerState::Stopped);
                return;
            }
            () = tokio::time::sleep(delay) => {}
        }
    }
}

struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

//! The backup daemon's wiring: one `backup-daemon` worker, owned by the worker runtime, that
//! first sweeps what a hard kill left behind (staging directories, stale multipart uploads) and
//! then ticks every 30 s (recover, cron, run the queued job, retention).

use std::sync::Arc;
use std::time::Duration;

use gateway_admin::backup_daemon::{BackupDaemon, BackupDaemonConfig};
use gateway_host::{FnWorker, WorkerRuntime};

use super::{StartError, Storage};

/// How often the daemon looks for work; a manual "run now" starts within this period.
pub const TICK: Duration = Duration::from_secs(30);

pub fn build(storage: &Storage, workers: &mut WorkerRuntime) -> Result<Arc<BackupDaemon>, StartError> {
    let mut config = BackupDaemonConfig::default();
    if storage.single_process {
        config.stale_after = time::Duration::ZERO;
    }
    let daemon = Arc::new(BackupDaemon::new(storage.facts.clone(), storage.backup_engine.clone(), config));
    let worker = {
        let daemon = daemon.clone();
        FnWorker::daemon("backup-daemon", move |ctx| {
            let daemon = daemon.clone();
            Box::pin(async move {
                tokio::select! {
                    () = ctx.stopping() => return Ok(()),
                    swept = daemon.sweep(time::OffsetDateTime::now_utc()) => {
                        if let Err(e) = swept {
                            tracing::warn!(error = %e, "the backup sweep at start failed");
                        }
                    }
                }
                ctx.every("backup-daemon", TICK, || {
                    let daemon = daemon.clone();
                    async move {
                        let report = daemon.tick(time::OffsetDateTime::now_utc()).await?;
                        if let Some(ran) = &report.ran {
                            tracing::info!(backup = %ran.id, state = %ran.state, "backup job finished");
                        }
                        Ok(())
                    }
                })
                .await
            })
        })
    };
    workers.register(worker).map_err(StartError::Wiring)?;
    Ok(daemon)
}

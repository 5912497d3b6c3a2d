//! The `alert-rules` worker: the evaluated rules (`quota_exhausted`, `error_rate`,
//! `backup_failing`; `gateway_admin::alerting::rules`) checked once per `alerts.evaluate_seconds`
//! across all replicas (a period lease), raising into the same alert queue as the data plane.

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use gateway_admin::alerting::rules::{RuleEvaluator, RuleSources};
use gateway_core::alerts::AlertSink;
use gateway_core::coordination::{Leases, PeriodicLeader, ReplicaId};
use gateway_host::{FnWorker, WorkerContext, WorkerRuntime};
use time::OffsetDateTime;

use super::{StartError, Storage};

pub fn register(
    config: &Config,
    storage: &Storage,
    sink: AlertSink,
    workers: &mut WorkerRuntime,
) -> Result<(), StartError> {
    let period = Duration::from_secs(config.alerts.evaluate_seconds);
    let leases: Arc<dyn Leases> = storage.coordination.clone();
    let facts = storage.facts.clone();
    let replica = ReplicaId::random();
    let worker = FnWorker::daemon("alert-rules", move |ctx: WorkerContext| {
        let sources = RuleSources {
            settings: facts.clone(),
            accounts: facts.clone(),
            usage: facts.clone(),
            backups: facts.clone(),
        };
        let mut evaluator = RuleEvaluator::new(sources, sink.clone());
        let mut leader = PeriodicLeader::new(leases.clone(), "alert-rules", period, replica.clone());
        Box::pin(async move {
            loop {
                let wait = match leader.poll().await {
                    Ok(decision) => {
                        if decision.run.is_some()
                            && let Err(error) = evaluator.evaluate(OffsetDateTime::now_utc()).await
                        {
                            tracing::warn!(%error, "alert rules not evaluated");
                        }
                        decision.next_in
                    }
                    Err(error) => {
                        tracing::warn!(%error, "alert rules period not claimed");
                        Duration::from_secs(5)
                    }
                };
                if !ctx.sleep(wait).await {
                    return Ok(());
                }
            }
        })
    });
    workers.register(worker).map_err(StartError::Wiring)
}

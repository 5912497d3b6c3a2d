//! The self-update wired to this process: its host facts, the replica name its trial derives
//! from, and the audit rows of its outcomes (through the admin unit of work).

use std::sync::Arc;

use crate::config::Config;
use async_trait::async_trait;
use gateway_admin::admin_user::AdminUserId;
use gateway_admin::audit::AuditActor;
use gateway_admin::ports::UnitOfWork;
use gateway_admin::system::record_system_event;
use gateway_host::Shutdown;
use gateway_host::update::{HostFacts, UpdateAudit, UpdateOutcome, Updater};
use gateway_transport::HttpClient;
use serde_json::json;

use super::StartError;

/// The updater of this process (host facts read now, at start-up), fetching with `http`.
pub fn updater(config: &Config, shutdown: &Shutdown, http: HttpClient) -> Result<Updater, StartError> {
    Updater::new(&config.update, &config.server.data_dir, shutdown.clone(), HostFacts::detect(), http)
        .map_err(|e| StartError::Wiring(format!("self-update: {e}")))
}

/// Audits outcomes as `system.<action>_<result>` (`system.update_installed`,
/// `system.update_rolled_back`, `system.update_failed`, `system.rollback_installed`, …) in the
/// name of the admin who asked.
pub struct OutcomeAudit {
    pub uow: Arc<dyn UnitOfWork>,
}

#[async_trait]
impl UpdateAudit for OutcomeAudit {
    async fn record(&self, outcome: &UpdateOutcome) -> Result<(), String> {
        let actor = AuditActor {
            user_id: outcome.requested_by.user_id.map(AdminUserId),
            name: outcome.requested_by.name.clone(),
        };
        let action = format!("system.{}_{}", outcome.action.as_str(), outcome.result.as_str());
        let details = json!({
            "fromVersion": outcome.from_version,
            "toVersion": outcome.to_version,
            "reason": outcome.reason,
        });
        record_system_event(self.uow.as_ref(), actor, &action, details).await.map_err(|e| e.to_string())
    }
}

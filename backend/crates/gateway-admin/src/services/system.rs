//! System events (self-update outcomes) written to the audit trail, and the unit of work the
//! composition root hands to process-level parts that audit (the self-update).

use std::sync::Arc;

use serde_json::Value;

use crate::audit::AuditActor;
use crate::error::AdminError;
use crate::ports::UnitOfWork;
use crate::services::Mutations;
use crate::system::record_system_event;

pub struct SystemService {
    uow: Mutations,
}

impl SystemService {
    pub fn new(uow: Mutations) -> Self {
        Self { uow }
    }

    /// Audits a system action (its own unit of work, published like every other).
    pub async fn record_event(&self, actor: AuditActor, action: &str, details: Value) -> Result<(), AdminError> {
        record_system_event(self.uow.get(), actor, action, details).await
    }

    /// The publishing unit of work the services use.
    pub fn unit_of_work(&self) -> Arc<dyn UnitOfWork> {
        self.uow.shared()
    }
}

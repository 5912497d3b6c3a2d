//! Audit rows of the system actions — self-update, rollback, restart — and of their outcomes.
//! The actions themselves run in the process host; this records who asked for what and how it
//! ended, in the same hash-chained trail as every other admin action.

use serde_json::Value;

use crate::AdminError;
use crate::audit::{AuditActor, AuditEntry};
use crate::ports::UnitOfWork;

/// Writes one `system.*` audit row (`system.update`, `system.update_rolled_back`, …); `details`
/// names versions and reasons, never secrets (they are redacted anyway).
pub async fn record_system_event(
    uow: &dyn UnitOfWork,
    actor: AuditActor,
    action: &str,
    details: Value,
) -> Result<(), AdminError> {
    if !action.starts_with("system.") {
        return Err(AdminError::Invalid { field: "action".into(), message: "must be a system.* action".into() });
    }
    let tx = uow.begin().await?;
    tx.commit(AuditEntry::new(actor, action, "system", None, details)).await?;
    Ok(())
}

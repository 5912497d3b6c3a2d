//! The coordination contract against the in-process adapter (embedded mode).

use std::sync::Arc;

use gateway_store::memory::MemoryCoordination;

async fn fresh(_test: &str) -> anyhow::Result<Arc<MemoryCoordination>> {
    Ok(Arc::new(MemoryCoordination::new()))
}

crate::coordination_contract::coordination_contract_suite!(fresh);

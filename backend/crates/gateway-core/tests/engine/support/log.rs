//! An in-memory request log: the rows the observation flusher writes, folded the way the store
//! folds them (the send state never falls, a terminal row never changes back).

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use gateway_core::domain::{
    Attempt, BootId, ModelRequestRecord, OpsEvent, QuotaFacts, RequestId, RequestStart, RequestStatus, RequestUpdate,
};
use gateway_core::observation::QuotaWriter;
use gateway_core::ports::{OpsEventLog, RequestLog, StorageError};
use time::OffsetDateTime;

/// One `model_requests` row as the fake stores it.
#[derive(Debug, Clone)]
pub struct Row {
    pub start: RequestStart,
    pub starts: usize,
    pub updates: Vec<RequestUpdate>,
    pub status: RequestStatus,
    pub send_state: gateway_core::domain::SendState,
    pub attempts: Vec<Attempt>,
    pub http_status: Option<u16>,
    pub error_code: Option<String>,
    pub downstream_committed_at: Option<OffsetDateTime>,
    pub client_response_id: Option<Vec<u8>>,
}

#[derive(Default)]
pub struct MemoryLog {
    rows: Mutex<HashMap<RequestId, Row>>,
    quota: Mutex<Vec<(gateway_core::domain::AccountId, QuotaFacts)>>,
}

impl MemoryLog {
    pub fn row(&self, id: RequestId) -> Option<Row> {
        self.rows.lock().expect("lock").get(&id).cloned()
    }

    pub fn rows(&self) -> Vec<Row> {
        self.rows.lock().expect("lock").values().cloned().collect()
    }

    pub fn is_finished(&self, id: RequestId) -> bool {
        self.row(id).is_some_and(|row| row.status.is_terminal())
    }
}

#[async_trait]
impl RequestLog for MemoryLog {
    async fn record_starts(&self, starts: &[RequestStart]) -> Result<u64, StorageError> {
        let mut rows = self.rows.lock().expect("lock");
        for start in starts {
            rows.entry(start.id).and_modify(|row| row.starts += 1).or_insert_with(|| Row {
                start: start.clone(),
                starts: 1,
                updates: Vec::new(),
                status: RequestStatus::Running,
                send_state: gateway_core::domain::SendState::NotSent,
                attempts: Vec::new(),
                http_status: None,
                error_code: None,
                downstream_committed_at: None,
                client_response_id: None,
            });
        }
        Ok(starts.len() as u64)
    }

    async fn record_updates(&self, updates: &[RequestUpdate]) -> Result<u64, StorageError> {
        let mut rows = self.rows.lock().expect("lock");
        let mut changed = 0;
        for update in updates {
            let Some(row) = rows.get_mut(&update.id) else { continue };
            row.updates.push(update.clone());
            if row.status.is_terminal() {
                continue;
            }
            changed += 1;
            row.status = update.status;
            row.send_state = row.send_state.raise(update.send_state);
            if let Some(attempts) = &update.attempts {
                row.attempts = attempts.clone();
            }
            row.http_status = update.outcome.http_status.or(row.http_status);
            row.error_code = update.outcome.error_code.clone().or(row.error_code.take());
            row.downstream_committed_at = update.downstream_committed_at.or(row.downstream_committed_at);
            row.client_response_id = update.outcome.client_response_id.clone().or(row.client_response_id.take());
        }
        Ok(changed)
    }

    async fn recover_stale(&self, _now: OffsetDateTime, _limit: u32) -> Result<Vec<RequestId>, StorageError> {
        Ok(Vec::new())
    }

    async fn running_boots(&self, _limit: u32) -> Result<Vec<BootId>, StorageError> {
        Ok(Vec::new())
    }

    async fn recover_boot(
        &self,
        _boot: BootId,
        _now: OffsetDateTime,
        _limit: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        Ok(Vec::new())
    }

    async fn running_boots_of(
        &self,
        _replica: &gateway_core::domain::ReplicaName,
        _limit: u32,
    ) -> Result<Vec<BootId>, StorageError> {
        Ok(Vec::new())
    }

    async fn recover_restarted_boot(
        &self,
        _replica: &gateway_core::domain::ReplicaName,
        _boot: BootId,
        _now: OffsetDateTime,
        _limit: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        Ok(Vec::new())
    }

    async fn delete_requests_before(&self, _cutoff: OffsetDateTime, _limit: u32) -> Result<u64, StorageError> {
        Ok(0)
    }

    async fn get_request(&self, id: RequestId) -> Result<ModelRequestRecord, StorageError> {
        Err(StorageError::NotFound { entity: "model_request", id: id.to_string() })
    }
}

#[async_trait]
impl OpsEventLog for MemoryLog {
    async fn record_ops_events(&self, events: &[OpsEvent]) -> Result<u64, StorageError> {
        Ok(events.len() as u64)
    }

    async fn delete_ops_events_before(&self, _cutoff: OffsetDateTime, _limit: u32) -> Result<u64, StorageError> {
        Ok(0)
    }
}

#[async_trait]
impl QuotaWriter for MemoryLog {
    async fn write(&self, account: gateway_core::domain::AccountId, facts: QuotaFacts) {
        self.quota.lock().expect("lock").push((account, facts));
    }
}

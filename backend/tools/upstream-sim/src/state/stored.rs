//! xAI responses kept for `previous_response_id` and `GET /v1/responses/{id}`.

use bytes::Bytes;

use crate::script::Directive;
use crate::state::SimState;

const STORED_RESPONSES_LIMIT: usize = 10_000;

/// An xAI response kept for `previous_response_id` (store: true).
#[derive(Debug, Clone)]
pub struct StoredResponse {
    pub account_id: String,
    pub directive: Directive,
    pub response: Bytes,
}

impl SimState {
    pub fn store_response(&self, id: String, stored: StoredResponse) {
        let mut inner = self.inner();
        while inner.stored_order.len() >= STORED_RESPONSES_LIMIT {
            if let Some(old) = inner.stored_order.pop_front() {
                inner.stored.remove(&old);
            }
        }
        inner.stored_order.push_back(id.clone());
        inner.stored.insert(id, stored);
    }

    pub fn stored_response(&self, id: &str) -> Option<StoredResponse> {
        self.inner().stored.get(id).cloned()
    }

    pub fn delete_stored_response(&self, id: &str) -> bool {
        self.inner().stored.remove(id).is_some()
    }
}

//! Recording what the simulator received (and the cookies it set), and the bytes it sent.

use std::sync::PoisonError;

use crate::ids::now_millis;
use crate::record::RecordedRequest;
use crate::state::SimState;

impl SimState {
    /// Records a request if recording is on; returns its `seq` (for
    /// [`SimState::record_set_cookies`]).
    pub fn record(
        &self,
        method: &str,
        uri: &http::Uri,
        headers: &http::HeaderMap,
        body: &[u8],
        account_id: Option<String>,
    ) -> Option<u64> {
        let settings = self.settings.read().unwrap_or_else(PoisonError::into_inner);
        if !settings.record_requests {
            return None;
        }
        let (limit, body_limit) = (settings.record_limit, settings.record_body_limit);
        drop(settings);
        let kept = &body[..body.len().min(body_limit)];
        let request = RecordedRequest {
            seq: 0,
            at_ms: now_millis(),
            method: method.to_owned(),
            path: uri.path().to_owned(),
            query: uri.query().map(str::to_owned),
            headers: headers
                .iter()
                .map(|(n, v)| (n.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
                .collect(),
            body: String::from_utf8_lossy(kept).into_owned(),
            body_truncated: kept.len() < body.len(),
            account_id,
            set_cookies: Vec::new(),
        };
        Some(self.records.lock().unwrap_or_else(PoisonError::into_inner).push(request, limit))
    }

    /// Adds the `Set-Cookie` values of the answer to the recorded request `seq` (nothing to do,
    /// and no lock, when the answer sets none).
    pub fn record_set_cookies(&self, seq: Option<u64>, answer: &http::HeaderMap) {
        let Some(seq) = seq else { return };
        if !answer.contains_key(http::header::SET_COOKIE) {
            return;
        }
        let cookies = answer
            .get_all(http::header::SET_COOKIE)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect();
        self.records.lock().unwrap_or_else(PoisonError::into_inner).set_cookies(seq, cookies);
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.records.lock().unwrap_or_else(PoisonError::into_inner).list()
    }

    /// Keeps the bytes sent for `response_id` (the last 256 responses).
    pub fn remember_sent(&self, response_id: String, bytes: bytes::Bytes) {
        let mut sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner);
        if sent.len() >= 256 {
            sent.pop_front();
        }
        sent.push_back((response_id, bytes));
    }

    /// The exact bytes sent for `response_id`, if still kept.
    pub fn sent_bytes(&self, response_id: &str) -> Option<bytes::Bytes> {
        let sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner);
        sent.iter().rev().find(|(id, _)| id == response_id).map(|(_, b)| b.clone())
    }

    pub fn clear_requests(&self) {
        self.records.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }
}

//! What the simulator received, kept for assertions (`GET /_sim/requests`, `SimHandle::requests`).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One received request (HTTP) or client frame (WebSocket; `method` = `WS`, the handshake headers).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// Increasing number, unique for the simulator's lifetime.
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub at_ms: u64,
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    /// Header names lowercase, in arrival order.
    pub headers: Vec<(String, String)>,
    /// Body after decompression (UTF-8, lossy), cut at the configured limit.
    pub body: String,
    pub body_truncated: bool,
    /// Account the request authenticated as, if any.
    pub account_id: Option<String>,
    /// The `Set-Cookie` values of the simulator's answer to it, in order (empty: none).
    #[serde(default)]
    pub set_cookies: Vec<String>,
}

impl RecordedRequest {
    /// First value of a header (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON, if it is JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_str(&self.body).ok()
    }
}

/// Bounded log of requests (oldest dropped first).
#[derive(Default)]
pub struct Recorder {
    next_seq: u64,
    items: VecDeque<RecordedRequest>,
}

impl Recorder {
    /// Keeps `request`; returns the `seq` it was given.
    pub fn push(&mut self, mut request: RecordedRequest, limit: usize) -> u64 {
        self.next_seq += 1;
        request.seq = self.next_seq;
        while self.items.len() >= limit.max(1) {
            self.items.pop_front();
        }
        self.items.push_back(request);
        self.next_seq
    }

    /// Sets the `Set-Cookie` values of request `seq`, if it is still kept.
    pub fn set_cookies(&mut self, seq: u64, cookies: Vec<String>) {
        if let Some(request) = self.items.iter_mut().rev().find(|r| r.seq == seq) {
            request.set_cookies = cookies;
        }
    }

    pub fn list(&self) -> Vec<RecordedRequest> {
        self.items.iter().cloned().collect()
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }
}

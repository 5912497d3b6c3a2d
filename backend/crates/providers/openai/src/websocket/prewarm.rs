//! Prewarm without an upstream socket.
//!
//! A client WebSocket's first frame is often a prewarm (`generate:false`): the upstream only
//! keeps the request so that the next turn can send `previous_response_id` and just the new
//! input. When the upstream socket cannot be opened (426, network) the gateway answers the
//! prewarm itself, as the backend would (`response.created` + `response.completed`, empty
//! output), and keeps what the next turn needs of it; the turn that continues it is sent over
//! HTTP with the prewarm's members and the input of both (`prewarm/replay.rs`). This is the only
//! transcript the provider holds, and only for its own synthetic prewarm.
//!
//! What is kept is the prewarm's JSON without the members that only steer that one request
//! (`type`, `generate`, `stream`, `store`, `model`, `previous_response_id`, parameters the
//! backend refuses), as bytes — never a parsed tree. It is budgeted in bytes per client key and
//! in total ([`PrewarmBudget`]); to make room the oldest prewarms go (the key's own first when
//! its budget is full), and a prewarm larger than a budget is answered but not kept: the turn
//! that continues it gets `previous_response_not_found`, which official clients answer by
//! sending the full history (decision 0112).

mod replay;

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use gateway_core::domain::ClientKeyId;
use gateway_protocol::SseFrame;
use gateway_protocol::request::{BodyEdit, RequestBody};
use serde_json::json;

pub use replay::merge;

use crate::transport::UNSUPPORTED_PARAMETERS;

/// Prewarms kept at most, whatever their size.
const CAPACITY: usize = 4096;
const TTL: Duration = Duration::from_secs(3600);
/// Bookkeeping of one kept prewarm, counted against the budgets besides its bytes.
const ENTRY_OVERHEAD: usize = 128;
/// Members that steer only the prewarm request itself; the next turn never needs them.
const NOT_KEPT: &[&str] = &["type", "generate", "stream", "store", "model", "previous_response_id"];

/// Bytes the kept prewarms may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrewarmBudget {
    /// For the prewarms of one client key.
    pub per_key_bytes: usize,
    /// For all prewarms of this process.
    pub total_bytes: usize,
}

impl Default for PrewarmBudget {
    fn default() -> Self {
        Self { per_key_bytes: 8 << 20, total_bytes: 64 << 20 }
    }
}

struct Entry {
    id: String,
    key: ClientKeyId,
    at: Instant,
    kept: Bytes,
    cost: usize,
}

#[derive(Default)]
struct Entries {
    /// Oldest first.
    queue: VecDeque<Entry>,
    total: usize,
    per_key: HashMap<ClientKeyId, usize>,
}

impl Entries {
    fn remove(&mut self, index: usize) {
        let Some(entry) = self.queue.remove(index) else { return };
        self.total -= entry.cost;
        if let Some(used) = self.per_key.get_mut(&entry.key) {
            *used -= entry.cost;
            if *used == 0 {
                self.per_key.remove(&entry.key);
            }
        }
    }

    fn prune_expired(&mut self) {
        while self.queue.front().is_some_and(|e| e.at.elapsed() >= TTL) {
            self.remove(0);
        }
    }

    fn find(&self, key: ClientKeyId, id: &str) -> Option<&Entry> {
        self.queue.iter().find(|e| e.key == key && e.id == id && e.at.elapsed() < TTL)
    }
}

/// The prewarms this process answered itself, by client key and response id.
#[derive(Default)]
pub struct PrewarmMemory {
    budget: PrewarmBudget,
    entries: Mutex<Entries>,
}

impl PrewarmMemory {
    pub fn new(budget: PrewarmBudget) -> Self {
        Self { budget, entries: Mutex::default() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Answers a prewarm locally and keeps what its next turn needs, within the budgets;
    /// returns the frames of the synthetic response.
    pub fn answer(&self, key: ClientKeyId, body: &[u8], view: &RequestBody, model: &str) -> Vec<SseFrame> {
        let id = format!("resp_{}", uuid::Uuid::new_v4().simple());
        self.keep(key, id.clone(), needed(body, view));
        synthetic_frames(&id, model)
    }

    /// Keeps `kept` as prewarm `id` of `key`, evicting the oldest prewarms to make room;
    /// `false` when it is larger than a budget and is not kept.
    pub fn keep(&self, key: ClientKeyId, id: String, kept: Bytes) -> bool {
        let cost = kept.len() + id.len() + ENTRY_OVERHEAD;
        if cost > self.budget.per_key_bytes || cost > self.budget.total_bytes {
            tracing::info!(bytes = kept.len(), "a prewarm is larger than its budget and is not kept");
            return false;
        }
        let mut entries = self.lock();
        entries.prune_expired();
        while entries.per_key.get(&key).copied().unwrap_or(0) + cost > self.budget.per_key_bytes {
            let Some(oldest) = entries.queue.iter().position(|e| e.key == key) else { break };
            entries.remove(oldest);
        }
        while !entries.queue.is_empty()
            && (entries.total + cost > self.budget.total_bytes || entries.queue.len() >= CAPACITY)
        {
            entries.remove(0);
        }
        entries.total += cost;
        *entries.per_key.entry(key).or_default() += cost;
        entries.queue.push_back(Entry { id, key, at: Instant::now(), kept, cost });
        true
    }

    /// What was kept of prewarm `id` of `key`, if it is still held.
    pub fn kept(&self, key: ClientKeyId, id: &str) -> Option<Bytes> {
        self.lock().find(key, id).map(|e| e.kept.clone())
    }

    pub fn knows(&self, key: ClientKeyId, id: &str) -> bool {
        self.lock().find(key, id).is_some()
    }

    /// (prewarms held, bytes they count against the total budget).
    pub fn usage(&self) -> (usize, usize) {
        let entries = self.lock();
        (entries.queue.len(), entries.total)
    }
}

/// The prewarm without the members only the prewarm request itself needs, in one buffer.
fn needed(body: &[u8], view: &RequestBody) -> Bytes {
    let mut edit = BodyEdit::new();
    for key in NOT_KEPT.iter().chain(UNSUPPORTED_PARAMETERS) {
        if view.has(key) {
            edit.remove(key);
        }
    }
    Bytes::from(edit.apply(body, view))
}

/// `response.created` and `response.completed` of an empty response, as the backend answers a
/// prewarm.
fn synthetic_frames(id: &str, model: &str) -> Vec<SseFrame> {
    let created_at = time::OffsetDateTime::now_utc().unix_timestamp();
    let response = |status: &str| {
        json!({"id": id, "object": "response", "created_at": created_at, "status": status, "model": model,
               "output": [], "usage": null})
    };
    let created = json!({"type": "response.created", "sequence_number": 0, "response": response("in_progress")});
    let mut done = response("completed");
    done["usage"] = json!({"input_tokens": 0, "output_tokens": 0, "total_tokens": 0});
    let completed = json!({"type": "response.completed", "sequence_number": 1, "response": done});
    vec![
        SseFrame::from_event("response.created", created.to_string().as_bytes()),
        SseFrame::from_event("response.completed", completed.to_string().as_bytes()),
    ]
}

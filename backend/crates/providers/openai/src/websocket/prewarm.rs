//! Prewarm without an upstream socket.
//!
//! A client WebSocket's first frame is often a prewarm (`generate:false`): the upstream only
//! keeps the request so that the next turn can send `previous_response_id` and just the new
//! input. When the upstream socket cannot be opened (426, network) the gateway answers the
//! prewarm itself, as the backend would (`response.created` + `response.completed`, empty
//! output), and keeps the prewarm request; the next turn that continues it is sent over HTTP
//! with the prewarm's fields and the input of both. This is the only transcript the provider
//! holds, and only for its own synthetic prewarm.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gateway_protocol::SseFrame;
use serde_json::{Value, json};

const CAPACITY: usize = 4096;
const TTL: Duration = Duration::from_secs(3600);

#[derive(Default)]
pub struct PrewarmMemory {
    entries: Mutex<VecDeque<(String, Instant, Value)>>,
}

impl PrewarmMemory {
    /// Answers a prewarm locally; returns the frames of the synthetic response.
    pub fn answer(&self, request: Value, model: &str) -> Vec<SseFrame> {
        let id = format!("resp_{}", uuid::Uuid::new_v4().simple());
        let created_at = time::OffsetDateTime::now_utc().unix_timestamp();
        let response = |status: &str| {
            json!({"id": id, "object": "response", "created_at": created_at, "status": status, "model": model,
                   "output": [], "usage": null})
        };
        let created = json!({"type": "response.created", "sequence_number": 0, "response": response("in_progress")});
        let mut done = response("completed");
        done["usage"] = json!({"input_tokens": 0, "output_tokens": 0, "total_tokens": 0});
        let completed = json!({"type": "response.completed", "sequence_number": 1, "response": done});
        let mut entries = self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        entries.retain(|(_, at, _)| at.elapsed() < TTL);
        if entries.len() >= CAPACITY {
            entries.pop_front();
        }
        entries.push_back((id, Instant::now(), request));
        vec![
            SseFrame::from_event("response.created", created.to_string().as_bytes()),
            SseFrame::from_event("response.completed", completed.to_string().as_bytes()),
        ]
    }

    /// The full request of a turn that continues a synthetic prewarm: the prewarm's fields, the
    /// turn's fields on top, and the input of both; `None` if `previous` is not one of ours.
    pub fn replay(&self, previous: &str, turn: &Value) -> Option<Value> {
        let entries = self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (_, _, prewarm) = entries.iter().find(|(id, at, _)| id == previous && at.elapsed() < TTL)?;
        let mut merged = prewarm.clone();
        let object = merged.as_object_mut()?;
        let mut input = object.get("input").and_then(Value::as_array).cloned().unwrap_or_default();
        if let Some(turn) = turn.as_object() {
            for (key, value) in turn {
                if key == "input" {
                    match value {
                        Value::Array(items) => input.extend(items.iter().cloned()),
                        other => input.push(other.clone()),
                    }
                } else {
                    object.insert(key.clone(), value.clone());
                }
            }
        }
        object.insert("input".to_owned(), Value::Array(input));
        for key in ["previous_response_id", "generate", "type"] {
            object.remove(key);
        }
        Some(merged)
    }

    pub fn knows(&self, id: &str) -> bool {
        let entries = self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        entries.iter().any(|(known, at, _)| known == id && at.elapsed() < TTL)
    }
}

//! Prepared streams: every event of a scenario serialized once, ids patched per request.
//!
//! A template is built the first time a scenario (a resolved [`crate::turn::TurnSpec`] or chat
//! spec) is seen and cached. Its bytes contain a 32-character sentinel wherever the per-request
//! id goes (`resp_<id>`, `msg_<id>`, `chatcmpl-<id>` …) and a sentinel timestamp in
//! `created_at`/`created`. Rendering copies only the frames that hold a sentinel and overwrites
//! the sentinel in place; every other frame is a `Bytes` clone. The fast path renders the whole
//! stream as one buffer: one allocation and one copy per request.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::{Bytes, BytesMut};
use serde_json::Value;

use crate::ids::{hex32, now_unix};

/// Placeholder for the per-request id (exactly 32 bytes, like the hex id that replaces it).
pub const ID_SENTINEL: &str = "SIMxRESPONSExIDxSENTINELxxxxxxx0";
/// Placeholder for the per-request Unix timestamp (exactly 10 digits).
pub const CREATED_SENTINEL: u64 = 1_111_111_111;
const CREATED_PATTERNS: [&[u8]; 2] = [b"\"created_at\":1111111111", b"\"created\":1111111111"];

/// Per-request values patched into a template.
#[derive(Debug, Clone, Copy)]
pub struct Ids {
    hex: [u8; 32],
    created: [u8; 10],
}

impl Ids {
    /// A fresh, process-unique id and the current time.
    pub fn fresh() -> Self {
        let mut created = [b'0'; 10];
        let digits = format!("{:010}", now_unix() % 10_000_000_000);
        created.copy_from_slice(digits.as_bytes());
        Self { hex: hex32(), created }
    }

    /// The 32 hex characters.
    pub fn hex(&self) -> &str {
        std::str::from_utf8(&self.hex).unwrap_or_default()
    }

    /// `prefix` + the id, e.g. `resp_…`.
    pub fn with_prefix(&self, prefix: &str) -> String {
        format!("{prefix}{}", self.hex())
    }
}

/// Serialized bytes plus the offsets of the sentinels in them.
#[derive(Debug, Clone)]
pub struct Frame {
    bytes: Bytes,
    id_at: Vec<usize>,
    created_at: Vec<usize>,
}

impl Frame {
    pub fn new(bytes: Vec<u8>) -> Self {
        let id_at = find_all(&bytes, ID_SENTINEL.as_bytes());
        let mut created_at = Vec::new();
        for pattern in CREATED_PATTERNS {
            created_at.extend(find_all(&bytes, pattern).into_iter().map(|at| at + pattern.len() - 10));
        }
        Self { bytes: Bytes::from(bytes), id_at, created_at }
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The bytes with this request's ids in place.
    pub fn render(&self, ids: &Ids) -> Bytes {
        if self.id_at.is_empty() && self.created_at.is_empty() {
            return self.bytes.clone();
        }
        let mut out = BytesMut::from(&self.bytes[..]);
        for &at in &self.id_at {
            out[at..at + 32].copy_from_slice(&ids.hex);
        }
        for &at in &self.created_at {
            out[at..at + 10].copy_from_slice(&ids.created);
        }
        out.freeze()
    }
}

fn find_all(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut start = 0;
    while let Some(pos) = haystack[start..].windows(needle.len()).position(|w| w == needle) {
        found.push(start + pos);
        start += pos + needle.len();
    }
    found
}

/// How events are framed on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `event: <type>\ndata: <json>\n\n` (Responses SSE).
    Named,
    /// `data: <json>\n\n` … `data: [DONE]\n\n` (Chat Completions SSE).
    DataWithDone,
}

/// One event: its JSON (WebSocket text frame) and its SSE frame.
#[derive(Debug, Clone)]
pub struct Event {
    pub json: Frame,
    pub sse: Frame,
}

/// A prepared stream.
#[derive(Debug)]
pub struct Template {
    pub events: Vec<Event>,
    /// All SSE frames concatenated (the fast path).
    pub sse_whole: Frame,
    /// The final object: the terminal `response` (Responses) or the `chat.completion`.
    pub final_object: Frame,
}

impl Template {
    /// Serializes `(event type, payload)` pairs once.
    pub fn build(events: &[(String, Value)], final_object: &Value, framing: Framing) -> Self {
        let mut whole = Vec::new();
        let mut out = Vec::with_capacity(events.len());
        for (name, payload) in events {
            let json = payload.to_string().into_bytes();
            let mut sse = Vec::with_capacity(json.len() + name.len() + 16);
            if framing == Framing::Named {
                sse.extend_from_slice(b"event: ");
                sse.extend_from_slice(name.as_bytes());
                sse.push(b'\n');
            }
            sse.extend_from_slice(b"data: ");
            sse.extend_from_slice(&json);
            sse.extend_from_slice(b"\n\n");
            whole.extend_from_slice(&sse);
            out.push(Event { json: Frame::new(json), sse: Frame::new(sse) });
        }
        if framing == Framing::DataWithDone {
            let done = b"data: [DONE]\n\n".to_vec();
            whole.extend_from_slice(&done);
            out.push(Event { json: Frame::new(b"[DONE]".to_vec()), sse: Frame::new(done) });
        }
        Self {
            events: out,
            sse_whole: Frame::new(whole),
            final_object: Frame::new(final_object.to_string().into_bytes()),
        }
    }
}

/// Templates by scenario, bounded (cleared when full).
pub struct TemplateCache<K> {
    map: Mutex<HashMap<K, Arc<Template>>>,
    limit: usize,
}

impl<K: Hash + Eq + Clone> TemplateCache<K> {
    pub fn new(limit: usize) -> Self {
        Self { map: Mutex::new(HashMap::new()), limit }
    }

    /// The cached template for `key`, building it with `build` on a miss.
    pub fn get_or_build(&self, key: &K, build: impl FnOnce() -> Template) -> Arc<Template> {
        if let Some(found) = self.map.lock().unwrap_or_else(PoisonError::into_inner).get(key) {
            return found.clone();
        }
        let built = Arc::new(build());
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        if map.len() >= self.limit {
            map.clear();
        }
        map.insert(key.clone(), built.clone());
        built
    }
}

//! Replay continuation from gateway-held transcripts (PROTOCOL H.3, decision 0290).
//!
//! - when a Grok response completes, its transcript — the input items as sent upstream (after
//!   translation, and after any earlier transcript was prepended) and the response's output
//!   items — is kept under (client key, client-visible response id) in the coordination store
//!   (`gateway_core::coordination::TranscriptStore`: Redis in production, in process in the
//!   embedded mode) for 4 hours; a transcript over 8 MiB or with more than 4,096 output items
//!   is not kept;
//! - a `previous_response_id` that cannot be continued natively (not stored upstream, its
//!   account unusable, or xAI answered the native attempt 404 / reasoning-decode 400) is
//!   *replayed*: the transcript is prepended to the new input, on any eligible account; the
//!   reasoning ciphertext is removed when the serving account is not the one that produced it;
//! - a natively continued turn's transcript is the previous transcript + its input + its
//!   output, so chains replay too; without the previous transcript nothing is kept (a partial
//!   history would continue silently without context);
//! - transcripts hold user content: never logged.

use std::sync::Arc;
use std::time::Duration;

use gateway_core::coordination::{TranscriptKey, TranscriptStore};
use gateway_core::domain::{AccountId, ClientKeyId};
use gateway_protocol::SseFrame;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::reasoning;
use crate::request::{NormalizationError, refuse};

/// How long a transcript is kept.
pub const TRANSCRIPT_TTL: Duration = Duration::from_secs(4 * 3600);
/// The largest transcript kept (encoded).
pub const MAX_TRANSCRIPT_BYTES: usize = 8 << 20;
/// The most output items of one response a transcript is kept for.
pub const MAX_OUTPUT_ITEMS: usize = 4_096;

const VERSION: u8 = 1;

/// A transcript as stored: every ciphertext in `items` was produced by (and was accepted by)
/// `account`.
#[derive(Serialize, Deserialize)]
struct Stored {
    v: u8,
    account: i64,
    items: Vec<Value>,
}

/// A transcript read back.
#[derive(Clone)]
pub struct Held {
    pub account: AccountId,
    pub items: Vec<Value>,
}

impl Held {
    /// The items to prepend when `serving` sends them: another account's ciphertext cannot be
    /// decrypted, so it is removed (an item left with nothing readable becomes a note).
    pub fn for_account(&self, serving: AccountId) -> Vec<Value> {
        let mut items = self.items.clone();
        if serving != self.account {
            for item in items.iter_mut().filter(|i| i.get("type").and_then(Value::as_str) == Some("reasoning")) {
                if let Some(object) = item.as_object_mut() {
                    object.remove("encrypted_content");
                }
                reasoning::normalize(item);
            }
        }
        items
    }
}

/// The transcripts of one provider over the coordination store.
pub struct Transcripts {
    store: Arc<dyn TranscriptStore>,
}

impl Transcripts {
    pub fn new(store: Arc<dyn TranscriptStore>) -> Self {
        Self { store }
    }

    /// The transcript `client_key` holds for `response_id`, if any. A store failure or an
    /// unreadable record reads as none (the caller falls back as for a missing one).
    pub async fn load(&self, client_key: ClientKeyId, response_id: &str) -> Option<Held> {
        let key = TranscriptKey::derive(client_key, response_id.as_bytes());
        let bytes = match self.store.transcript(&key).await {
            Ok(bytes) => bytes?,
            Err(error) => {
                tracing::warn!(%error, "could not read an xAI continuation transcript");
                return None;
            }
        };
        let stored: Stored = serde_json::from_slice(&bytes).ok().filter(|s: &Stored| s.v == VERSION)?;
        Some(Held { account: AccountId(stored.account), items: stored.items })
    }

    /// A recorder for one stream sent by `account` for `client_key`, whose transcript starts
    /// with `earlier` (items held for it but not in the body) followed by `sent`'s input.
    pub fn recorder(
        self: &Arc<Self>,
        client_key: ClientKeyId,
        account: AccountId,
        earlier: Vec<Value>,
        sent: &[u8],
    ) -> TranscriptRecorder {
        let mut input = earlier;
        input.extend(input_items(sent));
        TranscriptRecorder { transcripts: self.clone(), client_key, account, input, done_items: Vec::new() }
    }

    async fn keep(&self, key: TranscriptKey, stored: &Stored) {
        let Ok(bytes) = serde_json::to_vec(stored) else { return };
        if bytes.len() > MAX_TRANSCRIPT_BYTES {
            tracing::info!(bytes = bytes.len(), "an xAI transcript over 8 MiB is not kept");
            return;
        }
        if let Err(error) = self.store.keep_transcript(&key, &bytes, TRANSCRIPT_TTL).await {
            tracing::warn!(%error, "could not keep an xAI continuation transcript");
        }
    }
}

/// The input items of an upstream body; a text `input` is one user message.
pub fn input_items(body: &[u8]) -> Vec<Value> {
    let Ok(value) = serde_json::from_slice::<Value>(body) else { return Vec::new() };
    match value.get("input") {
        Some(Value::Array(items)) => items.clone(),
        Some(Value::String(text)) => vec![user_message(text)],
        _ => Vec::new(),
    }
}

fn user_message(text: &str) -> Value {
    json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
}

/// `body` (an upstream body) with `items` before its input.
pub fn prepend(body: &[u8], items: Vec<Value>) -> Result<Vec<u8>, NormalizationError> {
    let mut value: Value = serde_json::from_slice(body).map_err(|_| refuse("body", "not a JSON object"))?;
    let map = value.as_object_mut().ok_or_else(|| refuse("body", "not a JSON object"))?;
    let mut input = items;
    input.extend(input_items(body));
    map.insert("input".to_owned(), Value::Array(input));
    serde_json::to_vec(&value).map_err(|_| refuse("body", "cannot be encoded"))
}

/// Watches one stream for its response id and output; on `response.completed` it yields what
/// to keep ([`TranscriptRecorder::completed`]). Failed and incomplete responses keep nothing.
pub struct TranscriptRecorder {
    transcripts: Arc<Transcripts>,
    client_key: ClientKeyId,
    account: AccountId,
    input: Vec<Value>,
    done_items: Vec<Value>,
}

impl TranscriptRecorder {
    /// One client-bound frame; `Some` when it is the `response.completed` the caller must
    /// [`finish`](Self::finish) on before passing it on (so the next turn finds the transcript).
    pub fn observe(&mut self, frame: &SseFrame) -> Option<Completed> {
        let name = frame.event_name()?;
        if name != "response.output_item.done" && name != "response.completed" {
            return None;
        }
        let event = serde_json::from_slice::<Value>(&frame.data()?).ok()?;
        if name == "response.output_item.done" {
            if let Some(item) = event.get("item") {
                self.done_items.push(item.clone());
            }
            return None;
        }
        let response = event.get("response")?;
        let id = response.get("id").and_then(Value::as_str)?.to_owned();
        let output = response.get("output").and_then(Value::as_array).filter(|o| !o.is_empty());
        let output = output.cloned().unwrap_or_else(|| std::mem::take(&mut self.done_items));
        Some(Completed { id, output })
    }

    /// Keeps the transcript of the completed response (bounded; see the module docs).
    pub async fn finish(&mut self, completed: Completed) {
        if completed.output.len() > MAX_OUTPUT_ITEMS {
            tracing::info!(items = completed.output.len(), "an xAI transcript over 4,096 output items is not kept");
            return;
        }
        let mut items = std::mem::take(&mut self.input);
        items.extend(completed.output.into_iter().map(portable));
        let key = TranscriptKey::derive(self.client_key, completed.id.as_bytes());
        let stored = Stored { v: VERSION, account: self.account.0, items };
        self.transcripts.keep(key, &stored).await;
    }
}

/// What a completed response leaves for its transcript.
pub struct Completed {
    id: String,
    output: Vec<Value>,
}

/// An output item as it can go upstream again: reasoning items keep their portable fields.
fn portable(mut item: Value) -> Value {
    if item.get("type").and_then(Value::as_str) == Some("reasoning") {
        reasoning::normalize(&mut item);
    }
    item
}

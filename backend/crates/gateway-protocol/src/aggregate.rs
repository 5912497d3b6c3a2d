//! Builds the non-stream response object from a stream, for clients that did not ask for a
//! stream while the upstream only streams. The terminal event's `response` is the base; its
//! `output` is filled from the `output_item.done` events when the upstream left it empty (the
//! Codex backend does).

use serde_json::{Map, Value};

use crate::events::EventKind;

#[derive(Debug, Default)]
pub struct Aggregator {
    items: Vec<(u64, Value)>,
    last_response: Option<Value>,
    terminal: Option<(EventKind, Value)>,
}

impl Aggregator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one event payload of the given kind.
    pub fn push(&mut self, kind: EventKind, data: &[u8]) {
        if !matches!(
            kind,
            EventKind::Created
                | EventKind::InProgress
                | EventKind::OutputItemDone
                | EventKind::Completed
                | EventKind::Incomplete
                | EventKind::Failed
        ) {
            return;
        }
        let Ok(Value::Object(mut event)) = serde_json::from_slice::<Value>(data) else { return };
        match kind {
            EventKind::OutputItemDone => {
                let index = event.get("output_index").and_then(Value::as_u64).unwrap_or(self.items.len() as u64);
                if let Some(item) = event.remove("item") {
                    self.items.push((index, item));
                }
            }
            EventKind::Created | EventKind::InProgress => self.last_response = event.remove("response"),
            _ => {
                if let Some(response) = event.remove("response") {
                    self.terminal = Some((kind, response));
                }
            }
        }
    }

    pub fn is_finished(&self) -> bool {
        self.terminal.is_some()
    }

    /// The response object, once a terminal event arrived.
    pub fn finish(mut self) -> Option<(EventKind, Value)> {
        let (kind, mut response) = self.terminal.take()?;
        if let Value::Object(object) = &mut response {
            let empty = object.get("output").and_then(Value::as_array).is_none_or(Vec::is_empty);
            if empty && !self.items.is_empty() {
                self.items.sort_by_key(|(index, _)| *index);
                object.insert("output".to_owned(), Value::Array(self.items.into_iter().map(|(_, v)| v).collect()));
            }
            object.entry("object").or_insert_with(|| Value::String("response".to_owned()));
            if !object.contains_key("output") {
                object.insert("output".to_owned(), Value::Array(Vec::new()));
            }
            if let Some(Value::Object(created)) = self.last_response {
                fill_missing(object, created);
            }
        }
        Some((kind, response))
    }
}

/// Copies fields the terminal event left out (e.g. `model`, `created_at`) from `response.created`.
fn fill_missing(target: &mut Map<String, Value>, source: Map<String, Value>) {
    for (key, value) in source {
        target.entry(key).or_insert(value);
    }
}

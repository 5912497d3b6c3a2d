//! The facts tap: what the delivery reads on the side of the frames that pass (response id,
//! status, model, usage, errors) and the latency splits of the first event and first content.
//! Frames themselves go out untouched.

use gateway_protocol::events::{EventFacts, event_type, read_facts};
use gateway_protocol::{EventKind, SseFrame};

use crate::engine::record::RequestRecord;

#[derive(Default)]
pub(super) struct FactsTap {
    facts: EventFacts,
    first_content_seen: bool,
}

impl FactsTap {
    /// Reads one frame's facts and the request's latency splits; returns the frame's kind.
    pub(super) fn read(&mut self, frame: &SseFrame, record: &mut RequestRecord) -> EventKind {
        let kind = kind_of(frame);
        if record.latency.first_event_ms.is_none() {
            record.latency.first_event_ms = Some(record.elapsed_ms());
        }
        if kind == EventKind::Content && !self.first_content_seen {
            self.first_content_seen = true;
            record.latency.first_token_ms = Some(record.elapsed_ms());
        }
        if kind.has_facts()
            && let Some(data) = frame.data()
        {
            merge(&mut self.facts, read_facts(&data));
        }
        kind
    }

    pub(super) fn facts(&self) -> &EventFacts {
        &self.facts
    }
}

/// The event kind of a frame: its `event:` name, else the JSON `type` of its data.
pub(super) fn kind_of(frame: &SseFrame) -> EventKind {
    match frame.event_name() {
        Some(name) => EventKind::from_type(name),
        None => match frame.data() {
            Some(data) => event_type(&data).map_or(EventKind::Other, |t| EventKind::from_type(&t)),
            None => EventKind::Comment,
        },
    }
}

fn merge(into: &mut EventFacts, from: EventFacts) {
    into.response_id = from.response_id.or(into.response_id.take());
    into.status = from.status.or(into.status.take());
    into.model = from.model.or(into.model.take());
    into.service_tier = from.service_tier.or(into.service_tier.take());
    into.usage = from.usage.or(into.usage.take());
    into.error_code = from.error_code.or(into.error_code.take());
    into.error_message = from.error_message.or(into.error_message.take());
    into.incomplete_reason = from.incomplete_reason.or(into.incomplete_reason.take());
}

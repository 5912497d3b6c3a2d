//! A unary upstream answer — one JSON response object, as compaction returns (PROTOCOL D.3,
//! H.6) — as the one `response.completed` frame the engine's non-stream path aggregates, so
//! accounting and the request row serve it like any response. Shared by every provider.

use serde_json::Value;

use crate::SseFrame;

/// `body` (a JSON object) as a `response.completed` frame carrying it, `status` defaulted to
/// `completed`; `Err` names what is wrong with it.
pub fn completed_frame(body: &[u8]) -> Result<SseFrame, &'static str> {
    let Ok(Value::Object(mut object)) = serde_json::from_slice::<Value>(body) else {
        return Err("the answer is not a JSON object");
    };
    object.entry("status").or_insert_with(|| Value::String("completed".to_owned()));
    let event = serde_json::json!({"type": "response.completed", "response": Value::Object(object)});
    let data = serde_json::to_vec(&event).map_err(|_| "the answer could not be framed")?;
    Ok(SseFrame::from_event("response.completed", &data))
}

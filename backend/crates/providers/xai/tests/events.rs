//! The SSE re-synthesis: clean Responses frames, contiguous sequence numbers, extras dropped.

use gateway_protocol::{SseFrame, SseFramer};
use provider_xai::events::{Translated, Translator};
use serde_json::{Value, json};

fn upstream(events: &[(&str, Value)]) -> Vec<SseFrame> {
    let mut framer = SseFramer::new();
    for (name, data) in events {
        framer.push(format!("event: {name}\ndata: {data}\n\n").as_bytes());
    }
    framer.push(b": ping\n\ndata: [DONE]\n\n");
    std::iter::from_fn(|| framer.next_frame().ok().flatten()).collect()
}

fn run(frames: &[SseFrame]) -> (Vec<(String, Value)>, Translator) {
    let mut translator = Translator::new();
    let mut out = Vec::new();
    for frame in frames {
        if let Translated::Frames(clean) = translator.translate(frame) {
            for clean in clean {
                let data: Value = serde_json::from_slice(&clean.data().expect("data")).expect("json");
                out.push((clean.event_name().expect("event").to_owned(), data));
            }
        }
    }
    (out, translator)
}

#[test]
fn extras_and_unknown_events_are_dropped_and_the_rest_renumbered() {
    let response = json!({"id": "resp_1", "object": "response", "status": "in_progress", "output": []});
    let frames = upstream(&[
        ("response.created", json!({"type": "response.created", "sequence_number": 7, "response": response})),
        ("ping", json!({})),
        (
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "sequence_number": 9, "delta": "hi", "output_index": 0, "content_index": 0, "item_id": "msg_1"}),
        ),
        ("response.doom_loop_check", json!({"type": "response.doom_loop_check", "looping": false})),
        ("response.grok_internal", json!({"type": "response.grok_internal"})),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5, "cost_in_usd_ticks": 900}}}),
        ),
        ("response.output_text.delta", json!({"type": "response.output_text.delta", "delta": "after the end"})),
    ]);
    let (out, translator) = run(&frames);
    let names: Vec<&str> = out.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["response.created", "response.output_text.delta", "response.completed"]);
    for (index, (name, data)) in out.iter().enumerate() {
        assert_eq!(data["sequence_number"], json!(index));
        assert_eq!(data["type"], json!(name));
    }
    assert_eq!(out[2].1["response"]["usage"]["total_tokens"], json!(5), "usage passes");
    assert!(translator.finished());
}

#[test]
fn a_terminal_event_of_another_response_is_a_mismatch() {
    let frames = upstream(&[
        ("response.created", json!({"type": "response.created", "response": {"id": "resp_1"}})),
        ("response.completed", json!({"type": "response.completed", "response": {"id": "resp_2"}})),
    ]);
    let mut translator = Translator::new();
    assert!(matches!(translator.translate(&frames[0]), Translated::Frames(_)));
    assert_eq!(translator.translate(&frames[1]), Translated::Mismatch);
}

#[test]
fn failure_messages_lose_their_uuids() {
    let frames = upstream(&[(
        "response.failed",
        json!({"type": "response.failed", "response": {"id": "r", "status": "failed", "error": {"code": "rate_limit_exceeded", "message": "team 5f0c3a52-9d1b-4f7e-8a11-2b3c4d5e6f70 is limited"}}}),
    )]);
    let (out, _) = run(&frames);
    assert_eq!(out[0].1["response"]["error"]["message"], json!("team [redacted] is limited"));
}

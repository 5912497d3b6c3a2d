//! The body sent to the Codex backend (`transport.rs`): the controlled edits, and no copy of
//! the client's body.

use bytes::Bytes;
use gateway_protocol::request::RequestBody;
use provider_openai::transport::Transport;
use serde_json::{Value, json};

fn inside(part: &Bytes, body: &Bytes) -> bool {
    let (start, end) = (body.as_ptr() as usize, body.as_ptr() as usize + body.len());
    let at = part.as_ptr() as usize;
    at >= start && at + part.len() <= end
}

#[test]
fn a_body_already_in_the_backend_form_is_forwarded_as_it_came() {
    let body = Bytes::from_static(br#"{"model":"gpt-5.4","stream":true,"store":false,"input":[]}"#);
    let view = RequestBody::parse(&body).expect("valid");
    let sent = Transport::backend_body(&body, &view, "gpt-5.4");
    assert_eq!(sent.parts().len(), 1);
    assert_eq!(sent.parts()[0].as_ptr(), body.as_ptr(), "the client's bytes, not a copy");
}

#[test]
fn an_sdk_call_is_edited_without_copying_its_input() {
    let text = "y".repeat(1 << 20);
    let body = Bytes::from(
        serde_json::to_vec(&json!({"model": "gpt-5.4", "input": text, "temperature": 0.5, "top_p": 1})).expect("json"),
    );
    let view = RequestBody::parse(&body).expect("valid");
    let sent = Transport::backend_body(&body, &view, "gpt-5.4");
    let new_bytes: usize = sent.parts().iter().filter(|p| !inside(p, &body)).map(Bytes::len).sum();
    assert!(new_bytes < 200, "only the edits' own bytes are new: {new_bytes}");
    let value: Value = serde_json::from_slice(&sent.into_contiguous()).expect("valid JSON");
    assert_eq!(
        value,
        json!({"model": "gpt-5.4",
               "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}],
               "stream": true, "store": false})
    );
}

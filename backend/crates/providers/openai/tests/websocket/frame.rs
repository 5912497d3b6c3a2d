//! The request message sent upstream (`websocket/frame.rs`): one frame when small, fragments
//! of slices of the body when large, never cut inside a UTF-8 sequence.

use bytes::Bytes;
use gateway_protocol::request::{BodyEdit, RequestBody};
use provider_openai::websocket::frame::{FRAGMENT_BYTES, message_frames};
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

fn spliced(json: String) -> (Bytes, gateway_protocol::request::SplicedBody) {
    let body = Bytes::from(json);
    let view = RequestBody::parse(&body).expect("valid");
    let mut edit = BodyEdit::new();
    edit.set_string("type", "response.create").set_bool("store", false);
    let spliced = edit.splice(&body, &view);
    (body, spliced)
}

#[test]
fn a_small_message_is_one_text_frame() {
    let (_, body) = spliced(r#"{"model":"gpt-5.4","input":"hi"}"#.to_owned());
    let frames = message_frames(&body).expect("utf-8");
    assert_eq!(frames.len(), 1);
    assert!(frames[0].header().is_final);
    assert_eq!(frames[0].header().opcode, OpCode::Data(Data::Text));
    assert_eq!(frames[0].payload(), &body.into_contiguous()[..]);
}

#[test]
fn a_large_message_is_fragments_that_point_into_the_body() {
    // Multi-byte characters everywhere, so that most cuts would fall inside one.
    let text = "é€😀".repeat(40_000);
    let (original, body) = spliced(format!(r#"{{"model":"gpt-5.4","input":"{text}"}}"#));
    let frames = message_frames(&body).expect("utf-8");
    assert!(frames.len() > 3, "{} frames", frames.len());
    let mut joined = Vec::new();
    for (index, frame) in frames.iter().enumerate() {
        let header = frame.header();
        let expected = if index == 0 { Data::Text } else { Data::Continue };
        assert_eq!(header.opcode, OpCode::Data(expected));
        assert_eq!(header.is_final, index == frames.len() - 1);
        assert!(frame.payload().len() <= FRAGMENT_BYTES);
        assert!(std::str::from_utf8(frame.payload()).is_ok(), "frame {index} is cut inside a character");
        joined.extend_from_slice(frame.payload());
    }
    assert_eq!(joined, body.into_contiguous().to_vec());
    let start = original.as_ptr() as usize;
    let large = frames.iter().filter(|f| f.payload().len() > 1024);
    assert!(
        large
            .into_iter()
            .all(|f| (f.payload().as_ptr() as usize) >= start
                && (f.payload().as_ptr() as usize) < start + original.len()),
        "large fragments are slices of the client's body"
    );
}

#[test]
fn a_message_that_is_not_utf8_is_refused() {
    let body = Bytes::from(b"{\"input\":\"\xff\"}".to_vec());
    assert!(message_frames(&body.into()).is_none());
}

//! The request message sent on an upstream socket: the client's body (an HTTP body or a client
//! WebSocket message) with `type: response.create` and the same controlled edits as over HTTP.
//! `previous_response_id` and `generate` are kept: over a socket they work.
//!
//! The message is never copied whole. Up to [`FRAGMENT_BYTES`] it is one text frame (an
//! unedited body is the client's bytes as they came); above that it goes as a fragmented text
//! message (RFC 6455 §5.4) whose frames are slices of the client's body and the edits' bytes.
//! tungstenite copies each frame into its write buffer, and that buffer keeps its largest size
//! for the socket's life: fragments keep it near one fragment instead of the largest message.

use bytes::Bytes;
use gateway_core::provider::UpstreamCall;
use gateway_protocol::request::{BodyEdit, SplicedBody};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

use crate::identity::AccountIdentity;
use crate::transport::UNSUPPORTED_PARAMETERS;

/// Largest frame of a message sent upstream.
pub const FRAGMENT_BYTES: usize = 64 * 1024;

pub fn ws_frame_body(call: &UpstreamCall<'_>, identity: &AccountIdentity) -> SplicedBody {
    let body: &[u8] = call.body;
    let view = call.view;
    let mut edit = BodyEdit::new();
    if view.string(body, "type").ok().flatten().as_deref() != Some("response.create") {
        edit.set_string("type", "response.create");
    }
    if view.string(body, "model").ok().flatten().as_deref() != Some(call.upstream_model) {
        edit.set_string("model", call.upstream_model);
    }
    if view.boolean(body, "store").ok().flatten() != Some(false) {
        edit.set_bool("store", false);
    }
    for parameter in UNSUPPORTED_PARAMETERS {
        if view.has(parameter) {
            edit.remove(parameter);
        }
    }
    identity.edit_body(body, view, &mut edit);
    edit.splice(call.body, view)
}

/// The frames of one text message carrying `body`; `None` when it is not UTF-8.
pub fn message_frames(body: &SplicedBody) -> Option<Vec<Frame>> {
    // Every edit boundary lies on JSON structure (ASCII), so each part is UTF-8 on its own.
    if body.parts().iter().any(|part| std::str::from_utf8(part).is_err()) {
        return None;
    }
    if body.len() <= FRAGMENT_BYTES {
        return Some(vec![Frame::message(body.clone().into_contiguous(), OpCode::Data(Data::Text), true)]);
    }
    let mut pieces = Vec::new();
    for part in body.parts() {
        let mut rest = part.clone();
        while !rest.is_empty() {
            let cut = char_boundary(&rest, FRAGMENT_BYTES.min(rest.len()));
            pieces.push(rest.split_to(cut));
        }
    }
    let last = pieces.len().saturating_sub(1);
    let frames = pieces
        .into_iter()
        .enumerate()
        .map(|(index, piece)| {
            let opcode = if index == 0 { Data::Text } else { Data::Continue };
            Frame::message(piece, OpCode::Data(opcode), index == last)
        })
        .collect();
    Some(frames)
}

/// `at`, moved back to the start of the UTF-8 sequence it falls in (never to 0).
fn char_boundary(bytes: &Bytes, mut at: usize) -> usize {
    while at > 1 && at < bytes.len() && bytes[at] & 0xC0 == 0x80 {
        at -= 1;
    }
    at
}

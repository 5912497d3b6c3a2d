//! The request frame sent on an upstream socket: the client's body (an HTTP body or a client
//! WebSocket frame) with `type: response.create` and the same controlled edits as over HTTP.
//! `previous_response_id` and `generate` are kept: over a socket they work. A WebSocket message
//! is one payload: an edited frame is written once into a buffer of its final size, an
//! unedited one is the client's bytes as they came.

use bytes::Bytes;
use gateway_core::provider::UpstreamCall;
use gateway_protocol::request::BodyEdit;

use crate::transport::UNSUPPORTED_PARAMETERS;

pub fn ws_frame_body(call: &UpstreamCall<'_>) -> Bytes {
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
    edit.splice(call.body, view).into_contiguous()
}

//! The turn that continues a synthetic prewarm, as one request for HTTP: the turn's members, the
//! kept prewarm's members the turn does not carry, and `input` = the prewarm's items followed by
//! the turn's. Both are read as byte ranges; the result is written once, into a buffer of its
//! final size.

use bytes::Bytes;
use gateway_protocol::request::{BodyEdit, RequestBody};

/// A bare string `input` as the one item it stands for: a user message with one text part.
const MESSAGE_PREFIX: &[u8] = br#"{"type":"message","role":"user","content":[{"type":"input_text","text":"#;
const MESSAGE_SUFFIX: &[u8] = b"}]}";

/// The follow-up request; `None` when the kept prewarm or the turn cannot be read.
pub fn merge(prewarm: &[u8], turn: &[u8], turn_view: &RequestBody) -> Option<Bytes> {
    let prewarm_view = RequestBody::parse(prewarm).ok()?;
    let earlier = items(prewarm_view.raw(prewarm, "input"))?;
    let later = items(turn_view.raw(turn, "input"))?;
    let mut input = Vec::with_capacity(earlier.len() + later.len() + 3);
    input.push(b'[');
    input.extend_from_slice(&earlier);
    if !earlier.is_empty() && !later.is_empty() {
        input.push(b',');
    }
    input.extend_from_slice(&later);
    input.push(b']');
    let mut edit = BodyEdit::new();
    edit.set_raw("input", input);
    for (key, value) in prewarm_view.members(prewarm) {
        if key != "input" && !turn_view.has(key) {
            edit.set_raw(key, Bytes::copy_from_slice(value));
        }
    }
    Some(Bytes::from(edit.apply(turn, turn_view)))
}

/// The items of an `input` value, as the JSON between the brackets of an array: an array's own
/// items, a bare string as one user message; nothing when absent or null.
fn items(raw: Option<&[u8]>) -> Option<Vec<u8>> {
    let raw = match raw {
        None | Some(b"null") => return Some(Vec::new()),
        Some(raw) => raw,
    };
    match raw.first() {
        Some(b'[') => {
            let inner = raw.strip_prefix(b"[")?.strip_suffix(b"]")?.trim_ascii();
            Some(inner.to_vec())
        }
        Some(b'"') => {
            let mut item = Vec::with_capacity(MESSAGE_PREFIX.len() + raw.len() + MESSAGE_SUFFIX.len());
            item.extend_from_slice(MESSAGE_PREFIX);
            item.extend_from_slice(raw);
            item.extend_from_slice(MESSAGE_SUFFIX);
            Some(item)
        }
        // One item object (not what clients send, but unambiguous).
        Some(b'{') => Some(raw.to_vec()),
        _ => None,
    }
}

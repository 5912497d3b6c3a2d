//! [`BodyEdit`]: top-level edits of a request body applied in one pass, as byte splices.
//!
//! The output is rebuilt from the members that stay, in their order, each with its own bytes
//! (key, whitespace, value); between two members that stay comes the separator that followed the
//! first of them in the input, so removing any set of members — neighbours, the last one, all
//! but one, all — leaves valid JSON holding exactly the others. A replaced value takes the place
//! of the last occurrence of its key (earlier duplicates of that key go); new members are
//! appended after the last member; a body no edit touches comes out byte for byte.

use std::ops::Range;

use bytes::{Bytes, BytesMut};

use super::RequestBody;

/// What a set key's value becomes.
#[derive(Debug, Clone)]
enum NewValue {
    /// This JSON.
    Raw(Bytes),
    /// The present value between `prefix` and `suffix` (nothing when the key is absent).
    Wrap { prefix: &'static [u8], suffix: &'static [u8] },
}

/// A set of top-level edits applied in one pass.
#[derive(Debug, Default, Clone)]
pub struct BodyEdit {
    set: Vec<(String, NewValue)>,
    remove: Vec<String>,
}

/// A piece of the output: bytes of the input, or bytes of the edit.
enum Piece {
    Body(Range<usize>),
    Edit(Bytes),
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Self::Body(range) => range.len(),
            Self::Edit(bytes) => bytes.len(),
        }
    }
}

#[derive(Default)]
struct Pieces(Vec<Piece>);

impl Pieces {
    fn body(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        if let Some(Piece::Body(last)) = self.0.last_mut()
            && last.end == range.start
        {
            last.end = range.end;
            return;
        }
        self.0.push(Piece::Body(range));
    }

    fn edit(&mut self, bytes: Bytes) {
        if !bytes.is_empty() {
            self.0.push(Piece::Edit(bytes));
        }
    }
}

impl BodyEdit {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.remove.is_empty()
    }

    fn set_value(&mut self, key: &str, value: NewValue) -> &mut Self {
        self.remove.retain(|k| k != key);
        self.set.retain(|(k, _)| k != key);
        self.set.push((key.to_owned(), value));
        self
    }

    /// Replaces the value of `key` (keeping its position) or appends it at the end.
    pub fn set_raw(&mut self, key: &str, json: impl Into<Bytes>) -> &mut Self {
        self.set_value(key, NewValue::Raw(json.into()))
    }

    pub fn set_string(&mut self, key: &str, value: &str) -> &mut Self {
        let json = serde_json::to_vec(value).unwrap_or_else(|_| b"\"\"".to_vec());
        self.set_raw(key, json)
    }

    pub fn set_bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.set_raw(key, Bytes::from_static(if value { b"true" } else { b"false" }))
    }

    /// Puts the present value of `key` between `prefix` and `suffix` without copying it (e.g. a
    /// bare string `input` into a message). Does nothing when `key` is absent.
    pub fn wrap(&mut self, key: &str, prefix: &'static [u8], suffix: &'static [u8]) -> &mut Self {
        self.set_value(key, NewValue::Wrap { prefix, suffix })
    }

    pub fn remove(&mut self, key: &str) -> &mut Self {
        self.set.retain(|(k, _)| k != key);
        if !self.remove.iter().any(|k| k == key) {
            self.remove.push(key.to_owned());
        }
        self
    }

    /// What becomes of member `index`: `None` when it goes, else its new value if any.
    fn action<'e>(&'e self, view: &RequestBody, index: usize) -> Option<Option<&'e NewValue>> {
        let key = view.members[index].key.as_str();
        if self.remove.iter().any(|k| k == key) {
            return None;
        }
        let Some((_, value)) = self.set.iter().find(|(k, _)| k == key) else { return Some(None) };
        // The last occurrence takes the new value; earlier duplicates of the key go.
        let last = view.members.iter().rposition(|m| m.key == key);
        (last == Some(index)).then_some(Some(value))
    }

    fn pieces(&self, body_len: usize, view: &RequestBody) -> Pieces {
        let members = &view.members;
        let mut out = Pieces::default();
        out.body(0..members.first().map_or(view.close, |m| m.key_start));
        let mut previous: Option<usize> = None;
        for (index, member) in members.iter().enumerate() {
            let Some(value) = self.action(view, index) else { continue };
            if let Some(previous) = previous {
                // The separator (with its comma) that followed the previous member kept.
                out.body(members[previous].value.end..members[previous + 1].key_start);
            }
            out.body(member.key_start..member.value.start);
            match value {
                None => out.body(member.value.clone()),
                Some(NewValue::Raw(json)) => out.edit(json.clone()),
                Some(NewValue::Wrap { prefix, suffix }) => {
                    out.edit(Bytes::from_static(prefix));
                    out.body(member.value.clone());
                    out.edit(Bytes::from_static(suffix));
                }
            }
            previous = Some(index);
        }
        let mut any = previous.is_some();
        for (key, value) in &self.set {
            let NewValue::Raw(json) = value else { continue };
            if view.has(key) {
                continue;
            }
            if any {
                out.edit(Bytes::from_static(b","));
            }
            out.edit(Bytes::from(serde_json::to_vec(key).unwrap_or_else(|_| b"\"\"".to_vec())));
            out.edit(Bytes::from_static(b":"));
            out.edit(json.clone());
            any = true;
        }
        out.body(members.last().map_or(view.close, |m| m.value.end)..body_len);
        out
    }

    /// Applies the edits to `body` (which `view` was parsed from) into one buffer of the final
    /// size. Untouched bytes are copied as they are; with no edits the body is copied unchanged.
    pub fn apply(&self, body: &[u8], view: &RequestBody) -> Vec<u8> {
        if self.is_empty() {
            return body.to_vec();
        }
        let pieces = self.pieces(body.len(), view);
        let mut out = Vec::with_capacity(pieces.0.iter().map(Piece::len).sum());
        for piece in &pieces.0 {
            match piece {
                Piece::Body(range) => out.extend_from_slice(&body[range.clone()]),
                Piece::Edit(bytes) => out.extend_from_slice(bytes),
            }
        }
        out
    }

    /// Applies the edits without copying the body: the result points into `body` (which `view`
    /// was parsed from) and holds only the edits' own bytes besides. With no edits it is `body`.
    pub fn splice(&self, body: &Bytes, view: &RequestBody) -> SplicedBody {
        if self.is_empty() {
            return SplicedBody::from(body.clone());
        }
        let pieces = self.pieces(body.len(), view);
        let parts = pieces
            .0
            .into_iter()
            .map(|piece| match piece {
                Piece::Body(range) => body.slice(range),
                Piece::Edit(bytes) => bytes,
            })
            .collect();
        SplicedBody { parts }
    }
}

/// An edited body as pieces of the original plus the edits' bytes, to be written with one
/// vectored write; [`SplicedBody::into_contiguous`] when one buffer is needed.
#[derive(Debug, Clone, Default)]
pub struct SplicedBody {
    parts: Vec<Bytes>,
}

impl From<Bytes> for SplicedBody {
    fn from(body: Bytes) -> Self {
        Self { parts: vec![body] }
    }
}

impl SplicedBody {
    pub fn len(&self) -> usize {
        self.parts.iter().map(Bytes::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn parts(&self) -> &[Bytes] {
        &self.parts
    }

    /// The body in one buffer: the single part as it is, else one copy of the final size.
    pub fn into_contiguous(mut self) -> Bytes {
        if self.parts.len() == 1 {
            return self.parts.pop().unwrap_or_default();
        }
        let mut out = BytesMut::with_capacity(self.len());
        for part in &self.parts {
            out.extend_from_slice(part);
        }
        out.freeze()
    }
}

//! Responses request bodies: read the few fields the gateway needs, and make controlled edits
//! (the model mapping, `stream`/`store` as an upstream requires, dropping a parameter it refuses)
//! by splicing bytes — every other byte, unknown field and field order stays as the client sent
//! it (`request/edit.rs`).
//!
//! A body is held once: [`RequestBody`] borrows nothing and records only byte ranges, so the
//! body itself (a `Bytes`) moves on untouched; an edit either points into it
//! ([`SplicedBody`]) or writes one buffer of the final size.

mod edit;

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

pub use edit::{BodyEdit, SplicedBody};

/// Top-level keys the gateway itself reads or edits. A body holding one of them twice is
/// refused ([`RequestBody::duplicate`]): the gateway and the upstream must never read different
/// values of the same key. Other duplicates pass through untouched.
pub const GATEWAY_KEYS: &[&str] = &[
    "model",
    "stream",
    "store",
    "previous_response_id",
    "service_tier",
    "input",
    "type",
    "generate",
    "prompt_cache_key",
    "conversation_id",
];

/// Why a body could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    #[error("the request body is not valid JSON: {0}")]
    Json(String),
    #[error("the request body must be a JSON object")]
    NotAnObject,
    #[error("`{field}` {problem}")]
    Field { field: &'static str, problem: &'static str },
}

/// One top-level member: its key, where its key starts and the byte range of its value.
#[derive(Debug, Clone)]
struct Member {
    key: String,
    /// The key's opening quote.
    key_start: usize,
    value: Range<usize>,
}

/// A parsed view over a request body; borrows nothing, so the body can move on.
#[derive(Debug, Clone)]
pub struct RequestBody {
    members: Vec<Member>,
    /// Index of the closing `}`.
    close: usize,
}

struct MembersVisitor;

impl<'de> Visitor<'de> for MembersVisitor {
    type Value = Vec<(Cow<'de, str>, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(16));
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let value: &'de RawValue = map.next_value()?;
            members.push((key, value));
        }
        Ok(members)
    }
}

/// The first byte at or after `from` that is not JSON whitespace.
fn skip_whitespace(body: &[u8], mut from: usize) -> usize {
    while from < body.len() && matches!(body[from], b' ' | b'\t' | b'\n' | b'\r') {
        from += 1;
    }
    from
}

impl RequestBody {
    /// Parses the top level of `body`. The whole body is validated as JSON.
    pub fn parse(body: &[u8]) -> Result<Self, BodyError> {
        let mut de = serde_json::Deserializer::from_slice(body);
        let members = de.deserialize_map(MembersVisitor).map_err(|e| {
            if e.classify() == serde_json::error::Category::Data {
                BodyError::NotAnObject
            } else {
                BodyError::Json(e.to_string())
            }
        })?;
        de.end().map_err(|e| BodyError::Json(e.to_string()))?;
        let base = body.as_ptr() as usize;
        // The grammar fixes what lies between values: `{` ws key, or value ws `,` ws key, and
        // after the last value ws `}`. Walking forward over it finds each key's start without
        // ever looking inside a string.
        let mut cursor = skip_whitespace(body, 0) + 1; // past `{`
        let mut parsed = Vec::with_capacity(members.len());
        for (key, raw) in members {
            let start = raw.get().as_ptr() as usize - base;
            let mut key_start = skip_whitespace(body, cursor);
            if body.get(key_start) == Some(&b',') {
                key_start = skip_whitespace(body, key_start + 1);
            }
            let value = start..start + raw.get().len();
            cursor = value.end;
            parsed.push(Member { key: key.into_owned(), key_start, value });
        }
        let close = skip_whitespace(body, cursor);
        if body.get(close) != Some(&b'}') {
            return Err(BodyError::NotAnObject);
        }
        Ok(Self { members: parsed, close })
    }

    fn member(&self, key: &str) -> Option<&Member> {
        // The last occurrence wins, as in serde_json's own maps.
        self.members.iter().rev().find(|m| m.key == key)
    }

    /// The raw JSON of a top-level value.
    pub fn raw<'b>(&self, body: &'b [u8], key: &str) -> Option<&'b [u8]> {
        self.member(key).map(|m| &body[m.value.clone()])
    }

    pub fn has(&self, key: &str) -> bool {
        self.member(key).is_some()
    }

    /// Every top-level member in order: its key and raw value.
    pub fn members<'v, 'b>(&'v self, body: &'b [u8]) -> impl Iterator<Item = (&'v str, &'b [u8])> + use<'v, 'b> {
        self.members.iter().map(move |m| (m.key.as_str(), &body[m.value.clone()]))
    }

    /// The first of `keys` that occurs more than once at the top level.
    pub fn duplicate<'k>(&self, keys: &[&'k str]) -> Option<&'k str> {
        keys.iter().copied().find(|key| self.members.iter().filter(|m| m.key == *key).nth(1).is_some())
    }

    /// A top-level string value; `Ok(None)` when absent or null, an error when another type.
    pub fn string(&self, body: &[u8], key: &'static str) -> Result<Option<String>, BodyError> {
        match self.raw(body, key) {
            None | Some(b"null") => Ok(None),
            Some(raw) => serde_json::from_slice::<String>(raw)
                .map(Some)
                .map_err(|_| BodyError::Field { field: key, problem: "must be a string" }),
        }
    }

    /// A top-level boolean value; `Ok(None)` when absent or null.
    pub fn boolean(&self, body: &[u8], key: &'static str) -> Result<Option<bool>, BodyError> {
        match self.raw(body, key) {
            None | Some(b"null") => Ok(None),
            Some(b"true") => Ok(Some(true)),
            Some(b"false") => Ok(Some(false)),
            Some(_) => Err(BodyError::Field { field: key, problem: "must be a boolean" }),
        }
    }
}

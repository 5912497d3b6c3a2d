//! Responses request bodies: read the few fields the gateway needs, and make controlled edits
//! (the model mapping, `stream`/`store` as an upstream requires, dropping a parameter it refuses)
//! by splicing bytes — every other byte, unknown field and field order stays as the client sent
//! it.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

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

/// One top-level member: its key and the byte ranges of the whole member and of the value.
#[derive(Debug, Clone)]
struct Member {
    key: String,
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
        let members: Vec<Member> = members
            .into_iter()
            .map(|(key, raw)| {
                let start = raw.get().as_ptr() as usize - base;
                Member { key: key.into_owned(), value: start..start + raw.get().len() }
            })
            .collect();
        let close = body.iter().rposition(|b| *b == b'}').ok_or(BodyError::NotAnObject)?;
        Ok(Self { members, close })
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

    /// The byte range of a whole member (key through value) plus the comma that separates it.
    fn member_span(&self, body: &[u8], member: &Member) -> Range<usize> {
        let mut key_start = member.value.start;
        // Walk back over `:`, whitespace and the key string to the key's opening quote.
        while key_start > 0 && body[key_start - 1] != b'"' {
            key_start -= 1;
        }
        key_start = key_start.saturating_sub(1); // closing quote of the key
        while key_start > 0 {
            key_start -= 1;
            if body[key_start] == b'"' && !escaped(body, key_start) {
                break;
            }
        }
        let mut end = member.value.end;
        let mut after = end;
        while after < body.len() && body[after].is_ascii_whitespace() {
            after += 1;
        }
        if after < body.len() && body[after] == b',' {
            end = after + 1;
            return key_start..end;
        }
        // Last member: take the comma before it instead.
        let mut before = key_start;
        while before > 0 && body[before - 1].is_ascii_whitespace() {
            before -= 1;
        }
        if before > 0 && body[before - 1] == b',' {
            return before - 1..end;
        }
        key_start..end
    }
}

fn escaped(body: &[u8], quote: usize) -> bool {
    let backslashes = body[..quote].iter().rev().take_while(|b| **b == b'\\').count();
    backslashes % 2 == 1
}

/// A set of top-level edits applied in one pass.
#[derive(Debug, Default, Clone)]
pub struct BodyEdit {
    set: Vec<(String, Vec<u8>)>,
    remove: Vec<String>,
}

impl BodyEdit {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.remove.is_empty()
    }

    /// Replaces the value of `key` (keeping its position) or appends it at the end.
    pub fn set_raw(&mut self, key: &str, json: Vec<u8>) -> &mut Self {
        self.remove.retain(|k| k != key);
        self.set.retain(|(k, _)| k != key);
        self.set.push((key.to_owned(), json));
        self
    }

    pub fn set_string(&mut self, key: &str, value: &str) -> &mut Self {
        let json = serde_json::to_vec(value).unwrap_or_else(|_| b"\"\"".to_vec());
        self.set_raw(key, json)
    }

    pub fn set_bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.set_raw(key, if value { b"true".to_vec() } else { b"false".to_vec() })
    }

    pub fn remove(&mut self, key: &str) -> &mut Self {
        self.set.retain(|(k, _)| k != key);
        if !self.remove.iter().any(|k| k == key) {
            self.remove.push(key.to_owned());
        }
        self
    }

    /// Applies the edits to `body` (which `view` was parsed from). Untouched bytes are copied as
    /// they are; with no edits the body is returned unchanged.
    pub fn apply(&self, body: &[u8], view: &RequestBody) -> Vec<u8> {
        // (range to replace, replacement) sorted by position; appends go before the `}`.
        let mut splices: Vec<(Range<usize>, Vec<u8>)> = Vec::new();
        let mut appends: Vec<u8> = Vec::new();
        for key in &self.remove {
            for member in view.members.iter().filter(|m| &m.key == key) {
                splices.push((view.member_span(body, member), Vec::new()));
            }
        }
        let remaining = view.members.iter().filter(|m| !self.remove.contains(&m.key)).count();
        let mut has_members = remaining > 0;
        for (key, json) in &self.set {
            match view.member(key) {
                Some(member) => splices.push((member.value.clone(), json.clone())),
                None => {
                    if has_members {
                        appends.push(b',');
                    }
                    appends.extend_from_slice(&serde_json::to_vec(key).unwrap_or_default());
                    appends.push(b':');
                    appends.extend_from_slice(json);
                    has_members = true;
                }
            }
        }
        if !appends.is_empty() {
            splices.push((view.close..view.close, appends));
        }
        splices.sort_by_key(|(range, _)| (range.start, range.end));
        let mut out = Vec::with_capacity(body.len() + 64);
        let mut cursor = 0;
        for (range, replacement) in splices {
            if range.start < cursor {
                continue; // overlapping edit of an already removed member
            }
            out.extend_from_slice(&body[cursor..range.start]);
            out.extend_from_slice(&replacement);
            cursor = range.end;
        }
        out.extend_from_slice(&body[cursor..]);
        out
    }
}

//! `BodyEdit`: removals, replacements and appends give valid JSON holding exactly the intended
//! members, checked on examples and as a property against serde_json's own map edits.

use gateway_protocol::request::{BodyEdit, RequestBody};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn edit(body: &str, f: impl FnOnce(&mut BodyEdit)) -> String {
    let view = RequestBody::parse(body.as_bytes()).expect("valid body");
    let mut edit = BodyEdit::new();
    f(&mut edit);
    String::from_utf8(edit.apply(body.as_bytes(), &view)).expect("utf8")
}

#[test]
fn removing_neighbouring_members_keeps_valid_json_without_them() {
    // An ordinary SDK call: both sampling parameters are refused by the Codex backend.
    let body = r#"{"model":"gpt-5.4","input":"hi","temperature":0.5,"top_p":1}"#;
    assert_eq!(
        edit(body, |e| {
            e.remove("temperature").remove("top_p");
        }),
        r#"{"model":"gpt-5.4","input":"hi"}"#
    );
    assert_eq!(
        edit(r#"{"temperature":0.5,"top_p":1,"model":"m"}"#, |e| {
            e.remove("temperature").remove("top_p");
        }),
        r#"{"model":"m"}"#
    );
    assert_eq!(
        edit(r#"{"a":1,"temperature":0.5,"top_p":1,"b":2}"#, |e| {
            e.remove("temperature").remove("top_p");
        }),
        r#"{"a":1,"b":2}"#
    );
}

#[test]
fn removing_all_but_one_member_or_all_of_them() {
    let body = "{ \"a\" : 1 ,\n \"b\":[2], \"c\":{\"d\":3} , \"e\":\"}\" }";
    assert_eq!(
        edit(body, |e| {
            e.remove("a").remove("b").remove("e");
        }),
        "{ \"c\":{\"d\":3} }"
    );
    assert_eq!(
        edit(body, |e| {
            e.remove("b").remove("c").remove("e");
        }),
        "{ \"a\" : 1 }"
    );
    assert_eq!(
        edit(body, |e| {
            e.remove("a").remove("b").remove("c").remove("e");
        }),
        "{  }"
    );
    assert_eq!(
        edit(body, |e| {
            e.remove("a").remove("b").remove("c").remove("e").set_bool("stream", true);
        }),
        "{ \"stream\":true }"
    );
}

#[test]
fn removing_a_member_next_to_a_replaced_one_keeps_the_replacement() {
    assert_eq!(
        edit(r#"{"model":"alias","temperature":0.5,"store":true,"top_p":1}"#, |e| {
            e.set_string("model", "gpt-5.4").remove("temperature").set_bool("store", false).remove("top_p");
        }),
        r#"{"model":"gpt-5.4","store":false}"#
    );
}

// ---------------------------------------------------------------------------------------------
// The property: the editor's output, parsed, equals serde_json's own edit of the parsed input,
// key order included.

/// One member as written: key text (JSON, possibly with escapes), value, whitespace around.
#[derive(Debug, Clone)]
struct Written {
    key: String,
    key_json: String,
    value: Value,
    pretty: bool,
    ws: [String; 4],
}

#[derive(Debug, Clone)]
enum Op {
    Keep,
    Remove,
    Set(Value),
}

fn whitespace() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec!["", " ", "\n", "\t", "\r\n", "  "]), 0..3)
        .prop_map(|parts| parts.concat())
}

fn key() -> impl Strategy<Value = String> {
    let names = prop::sample::select(vec![
        "model",
        "input",
        "temperature",
        "top_p",
        "store",
        "stream",
        "a",
        "b",
        "x_unknown",
        "",
    ]);
    let tricky = prop::sample::select(vec!["", "\"", "\\", "é", "/", "}", ",", ":", "\u{1F600}", "\t"]);
    (names, tricky, 0u8..4).prop_map(|(name, extra, n)| format!("{name}{}", extra.repeat(usize::from(n))))
}

/// A key's JSON text: serde_json's own, or every character as a `\uXXXX` escape.
fn key_json(key: &str, escape_all: bool) -> String {
    if !escape_all {
        return serde_json::to_string(key).expect("a string serialises");
    }
    let mut out = String::from("\"");
    for unit in key.encode_utf16() {
        out.push_str(&format!("\\u{unit:04x}"));
    }
    out.push('"');
    out
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        // Floats that print and parse back exactly (serde_json's default parser is not exact).
        prop::sample::select(vec![0.5f64, -1.25, 1e10, 0.0]).prop_map(Value::from),
        prop::sample::select(vec!["", "hi", "}", ",\"x\":1", "a\"b", "back\\slash", "line\nbreak", "é\u{1F600}"])
            .prop_map(|s| Value::String(s.to_owned())),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

fn written() -> impl Strategy<Value = Written> {
    (key(), any::<bool>(), value(), any::<bool>(), [whitespace(), whitespace(), whitespace(), whitespace()]).prop_map(
        |(key, escape_all, value, pretty, ws)| Written { key_json: key_json(&key, escape_all), key, value, pretty, ws },
    )
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![2 => Just(Op::Keep), 2 => Just(Op::Remove), 1 => value().prop_map(Op::Set)]
}

/// Members with distinct keys, each with an operation; new keys to append; absent keys to
/// remove; whitespace around the object.
type Case = (Vec<(Written, Op)>, Vec<(String, Value)>, Vec<String>, [String; 2]);

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((written(), op()), 0..8),
        prop::collection::vec((key(), value()), 0..3),
        prop::collection::vec(key(), 0..2),
        [whitespace(), whitespace()],
    )
        .prop_map(|(members, appends, absent, outer)| {
            let mut seen = std::collections::HashSet::new();
            let members: Vec<_> = members.into_iter().filter(|(w, _)| seen.insert(w.key.clone())).collect();
            let appends: Vec<_> = appends.into_iter().filter(|(k, _)| seen.insert(k.clone())).collect();
            let absent: Vec<_> = absent.into_iter().filter(|k| seen.insert(k.clone())).collect();
            (members, appends, absent, outer)
        })
}

fn render(members: &[(Written, Op)], outer: &[String; 2]) -> String {
    let mut body = format!("{}{{", outer[0]);
    for (i, (w, _)) in members.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        let value = if w.pretty { serde_json::to_string_pretty(&w.value) } else { serde_json::to_string(&w.value) };
        let value = value.expect("a value serialises");
        body.push_str(&format!("{}{}{}:{}{}{}", w.ws[0], w.key_json, w.ws[1], w.ws[2], value, w.ws[3]));
    }
    if members.is_empty() {
        body.push_str(&outer[1]);
    }
    body.push('}');
    body.push_str(&outer[1]);
    body
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn edits_match_serde_json_on_random_objects(
        (members, appends, absent, outer) in case()
    ) {
        let body = render(&members, &outer);
        let view = RequestBody::parse(body.as_bytes()).expect("the rendered body is valid JSON");
        let mut expected: Map<String, Value> = serde_json::from_str(&body).expect("valid");
        let mut edit = BodyEdit::new();
        for (w, op) in &members {
            match op {
                Op::Keep => {}
                Op::Remove => {
                    edit.remove(&w.key);
                    expected.shift_remove(&w.key);
                }
                Op::Set(value) => {
                    edit.set_raw(&w.key, serde_json::to_vec(value).expect("serialises"));
                    expected.insert(w.key.clone(), value.clone());
                }
            }
        }
        for (key, value) in &appends {
            edit.set_raw(key, serde_json::to_vec(value).expect("serialises"));
            expected.insert(key.clone(), value.clone());
        }
        for key in &absent {
            edit.remove(key);
        }
        let out = edit.apply(body.as_bytes(), &view);
        let text = String::from_utf8(out).expect("utf8");
        let parsed: Map<String, Value> = serde_json::from_str(&text)
            .map_err(|e| TestCaseError::fail(format!("invalid JSON {text:?} from {body:?}: {e}")))?;
        prop_assert_eq!(parsed.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>(), "keys of {:?}", text);
        prop_assert_eq!(&parsed, &expected, "values of {:?}", text);
        if edit.is_empty() || members.iter().all(|(_, op)| matches!(op, Op::Keep)) && appends.is_empty() {
            prop_assert_eq!(text, body, "an edit that changes nothing leaves every byte");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One copy of a body: a splice points into the body instead of copying it.

fn inside(part: &bytes::Bytes, body: &bytes::Bytes) -> bool {
    let (start, end) = (body.as_ptr() as usize, body.as_ptr() as usize + body.len());
    let at = part.as_ptr() as usize;
    at >= start && at + part.len() <= end
}

#[test]
fn an_unedited_splice_is_the_body_itself() {
    let body = bytes::Bytes::from_static(br#"{"model":"m","input":"hi"}"#);
    let view = RequestBody::parse(&body).expect("valid");
    let spliced = BodyEdit::new().splice(&body, &view);
    assert_eq!(spliced.parts().len(), 1);
    assert_eq!(spliced.parts()[0].as_ptr(), body.as_ptr(), "no copy");
    assert_eq!(spliced.into_contiguous().as_ptr(), body.as_ptr(), "still no copy");
}

#[test]
fn a_splice_keeps_the_large_value_in_place_and_matches_apply() {
    let text = "x".repeat(64 * 1024);
    let body = bytes::Bytes::from(format!(r#"{{"model":"alias","input":"{text}","temperature":0.5,"top_p":1}}"#));
    let view = RequestBody::parse(&body).expect("valid");
    let mut edit = BodyEdit::new();
    edit.set_string("model", "gpt-5.4").remove("temperature").remove("top_p").set_bool("store", false).wrap(
        "input",
        b"[{\"type\":\"message\",\"content\":",
        b"}]",
    );
    let spliced = edit.splice(&body, &view);
    let copied = edit.apply(&body, &view);
    assert!(spliced.parts().iter().any(|p| p.len() > text.len() && inside(p, &body)), "the input is not copied");
    assert!(spliced.parts().iter().all(|p| inside(p, &body) || p.len() < 64), "only the edits' own bytes are new");
    assert_eq!(spliced.len(), copied.len());
    assert_eq!(copied.capacity(), copied.len(), "apply writes one buffer of the final size");
    let contiguous = spliced.into_contiguous();
    assert_eq!(&contiguous[..], &copied[..]);
    let value: Value = serde_json::from_slice(&contiguous).expect("valid JSON");
    assert_eq!(
        value,
        serde_json::json!({"model": "gpt-5.4", "input": [{"type": "message", "content": text}], "store": false})
    );
}

#[test]
fn wrapping_an_absent_key_does_nothing() {
    assert_eq!(
        edit(r#"{"model":"m"}"#, |e| {
            e.wrap("input", b"[", b"]");
        }),
        r#"{"model":"m"}"#
    );
}

#[test]
fn setting_a_duplicated_key_leaves_one_member_with_the_new_value() {
    assert_eq!(
        edit(r#"{"x":1,"model":"a","y":2,"model":"b"}"#, |e| {
            e.set_string("model", "c");
        }),
        r#"{"x":1,"y":2,"model":"c"}"#
    );
}

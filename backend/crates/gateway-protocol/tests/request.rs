//! Reading request bodies (`request.rs`); the editor in `request/edit.rs`.

mod edit;

use gateway_protocol::request::{BodyEdit, BodyError, RequestBody};

fn edit(body: &str, f: impl FnOnce(&mut BodyEdit)) -> String {
    let view = RequestBody::parse(body.as_bytes()).expect("valid body");
    let mut edit = BodyEdit::new();
    f(&mut edit);
    String::from_utf8(edit.apply(body.as_bytes(), &view)).expect("utf8")
}

#[test]
fn reads_the_fields_the_gateway_needs() {
    let body = br#"{"model":"gpt-5.4","stream":true,"x_unknown":{"nested":[1,2]},"prompt_cache_key":"abc"}"#;
    let view = RequestBody::parse(body).expect("valid");
    assert_eq!(view.string(body, "model").expect("ok").as_deref(), Some("gpt-5.4"));
    assert_eq!(view.boolean(body, "stream").expect("ok"), Some(true));
    assert_eq!(view.boolean(body, "store").expect("ok"), None);
    assert_eq!(view.raw(body, "x_unknown"), Some(&br#"{"nested":[1,2]}"#[..]));
    assert!(matches!(view.boolean(body, "model"), Err(BodyError::Field { field: "model", .. })));
}

#[test]
fn replacing_the_model_keeps_every_other_byte_and_the_order() {
    let body = "{ \"zeta\": 1,\n  \"model\" : \"alias\",\"input\":[{\"type\":\"message\"}], \"a\":null }";
    let out = edit(body, |e| {
        e.set_string("model", "gpt-5.4");
    });
    assert_eq!(out, "{ \"zeta\": 1,\n  \"model\" : \"gpt-5.4\",\"input\":[{\"type\":\"message\"}], \"a\":null }");
}

#[test]
fn missing_fields_are_appended_and_removed_fields_take_their_comma() {
    assert_eq!(
        edit(r#"{"model":"m","temperature":0.2,"input":[]}"#, |e| {
            e.remove("temperature").set_bool("store", false);
        }),
        r#"{"model":"m","input":[],"store":false}"#
    );
    assert_eq!(
        edit(r#"{"model":"m","max_output_tokens":5}"#, |e| {
            e.remove("max_output_tokens");
        }),
        r#"{"model":"m"}"#
    );
    assert_eq!(
        edit(r#"{"top_p":1,"model":"m"}"#, |e| {
            e.remove("top_p");
        }),
        r#"{"model":"m"}"#
    );
    assert_eq!(
        edit(r#"{"only":1}"#, |e| {
            e.remove("only").set_bool("stream", true);
        }),
        r#"{"stream":true}"#
    );
    assert_eq!(
        edit("{}", |e| {
            e.set_bool("stream", true);
        }),
        r#"{"stream":true}"#
    );
}

#[test]
fn keys_with_escapes_are_found_and_removed() {
    let out = edit(r#"{"we\"ird":1,"model":"m"}"#, |e| {
        e.remove("we\"ird");
    });
    assert_eq!(out, r#"{"model":"m"}"#);
}

#[test]
fn no_edits_return_the_body_unchanged() {
    let body = r#"{"model":"m",  "input" : "hi"}"#;
    assert_eq!(edit(body, |_| {}), body);
}

#[test]
fn invalid_bodies_are_refused_clearly() {
    assert!(matches!(RequestBody::parse(b"{\"model\":"), Err(BodyError::Json(_))));
    assert!(matches!(RequestBody::parse(b"[1]"), Err(BodyError::NotAnObject)));
    assert!(matches!(RequestBody::parse(b"{} trailing"), Err(BodyError::Json(_))));
}

#[test]
fn duplicates_of_keys_the_gateway_reads_are_found_and_others_ignored() {
    use gateway_protocol::request::GATEWAY_KEYS;
    let duplicated = |body: &str| RequestBody::parse(body.as_bytes()).expect("valid").duplicate(GATEWAY_KEYS);
    assert_eq!(duplicated(r#"{"model":"a","input":"hi","model":"b"}"#), Some("model"));
    assert_eq!(duplicated(r#"{"model":"a","stream":true,"stream":false}"#), Some("stream"));
    assert_eq!(duplicated(r#"{"model":"a","store":false," store":true,"store":true}"#), Some("store"));
    // The same key spelled with an escape is the same key.
    assert_eq!(duplicated(r#"{"model":"a","\u006dodel":"b"}"#), Some("model"));
    assert_eq!(duplicated(r#"{"model":"a","x_unknown":1,"x_unknown":2}"#), None);
    assert_eq!(
        duplicated(r#"{"model":"a","tools":[{"model":"x"},{"model":"y"}]}"#),
        None,
        "nested keys are not top level"
    );
}

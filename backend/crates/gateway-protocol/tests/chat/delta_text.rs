//! Decoding delta strings across events (`src/chat/delta_text.rs`).

use gateway_protocol::chat::delta_text::DeltaText;

#[test]
fn a_surrogate_pair_split_across_two_deltas_is_one_character() {
    let mut text = DeltaText::new();
    assert_eq!(text.decode(r#""ok \ud83d""#).as_deref(), Some("ok "));
    assert_eq!(text.decode(r#""\ude00!""#).as_deref(), Some("😀!"));
    assert_eq!(text.finish(), "");
}

#[test]
fn escapes_and_raw_utf8_decode_as_json_does() {
    let mut text = DeltaText::new();
    assert_eq!(text.decode(r#""a\n\t\"\\\/é\u00e9👍""#).as_deref(), Some("a\n\t\"\\/éé👍"));
}

#[test]
fn an_orphan_half_becomes_the_replacement_character() {
    let mut text = DeltaText::new();
    assert_eq!(text.decode(r#""x\ud83d""#).as_deref(), Some("x"));
    assert_eq!(text.decode(r#""y""#).as_deref(), Some("\u{fffd}y"));
    assert_eq!(text.decode(r#""\ude00""#).as_deref(), Some("\u{fffd}"));
    assert_eq!(text.decode(r#""\ud83d""#).as_deref(), Some(""));
    assert_eq!(text.finish(), "\u{fffd}");
}

#[test]
fn a_non_string_is_refused() {
    assert_eq!(DeltaText::new().decode("12"), None);
    assert_eq!(DeltaText::new().decode(r#""bad \q""#), None);
}

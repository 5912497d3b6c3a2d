use http::HeaderMap;
use serde_json::json;
use upstream_sim::Directive;
use upstream_sim::script::{for_request, tool_output_after_last_user};

#[test]
fn parses_quoted_values_and_numbers() {
    let d = Directive::parse(r#"events=100 delay_ms=10 text="a \"quoted\" text" args='{"cmd":"ls -l"}' reasoning=1"#)
        .expect("parses");
    assert_eq!(d.events, Some(100));
    assert_eq!(d.delay_ms, Some(10));
    assert_eq!(d.text.as_deref(), Some("a \"quoted\" text"));
    assert_eq!(d.args.as_deref(), Some(r#"{"cmd":"ls -l"}"#));
    assert_eq!(d.reasoning, Some(true));
    assert!(Directive::parse("unknown=1").is_err());
    assert!(Directive::parse("events=many").is_err());
    assert!(Directive::parse("args='not json'").is_err());
}

#[test]
fn body_lines_headers_and_queue_layer_in_order() {
    let body = json!({
        "instructions": "sim: events=2 text=first",
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello\nsim: text=second"}]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "sim: status=500"}]},
        ],
    });
    let mut headers = HeaderMap::new();
    headers.insert("x-sim-delay-ms", "5".parse().expect("header"));
    let queued = Directive::parse("events=9").expect("parses");
    let d = for_request(&body, &headers, Some(queued)).expect("directive");
    assert_eq!(d.text.as_deref(), Some("second"));
    assert_eq!(d.events, Some(9));
    assert_eq!(d.delay_ms, Some(5));
    assert_eq!(d.status, None, "assistant messages are not scanned");
}

#[test]
fn tool_output_is_found_only_after_the_last_user_message() {
    let with_output = json!({"input": [
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "c", "name": "x", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "result"},
    ]});
    assert_eq!(tool_output_after_last_user(&with_output).as_deref(), Some("result"));
    let new_turn = json!({"input": [
        {"type": "function_call_output", "call_id": "c", "output": "old"},
        {"role": "user", "content": "again"},
    ]});
    assert_eq!(tool_output_after_last_user(&new_turn), None);
    let chat = json!({"messages": [{"role": "user", "content": "go"}, {"role": "tool", "tool_call_id": "c", "content": "chat result"}]});
    assert_eq!(tool_output_after_last_user(&chat).as_deref(), Some("chat result"));
}

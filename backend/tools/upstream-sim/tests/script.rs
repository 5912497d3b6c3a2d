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

#[test]
fn parses_the_edge_and_fault_keys() {
    let d =
        Directive::parse("challenge=1 page=text stall_after=2 reset_before_head=1 retry_after_date=5").expect("parses");
    assert_eq!(d.challenge, Some(403));
    assert_eq!(d.page, Some(upstream_sim::Page::Text));
    assert_eq!(d.stall_after, Some(2));
    assert_eq!(d.reset_before_head, Some(true));
    assert_eq!(d.retry_after_date, Some(5));
    assert!(d.acts_at_edge());
    for status in [403, 429, 503] {
        assert_eq!(Directive::parse(&format!("challenge={status}")).expect("parses").challenge, Some(status));
    }
    let cookies = Directive::parse("set_cookie='a=1; Path=/ | b=; Max-Age=0'").expect("parses");
    assert_eq!(cookies.set_cookie, Some(vec!["a=1; Path=/".to_owned(), "b=; Max-Age=0".to_owned()]));
    assert!(!cookies.acts_at_edge(), "cookies ride on the backend's answer");
    for bad in ["challenge=200", "challenge=x", "page=pdf", "set_cookie=novalue", "set_cookie='=x'", "stall_after=-1"] {
        assert!(Directive::parse(bad).is_err(), "{bad}");
    }
    let json: Directive = serde_json::from_value(json!({"challenge": 200})).expect("deserializes");
    assert!(json.check().is_err(), "a JSON directive is checked like the sim: syntax");
    assert!(Directive::default().retry_after_value().is_none());
}

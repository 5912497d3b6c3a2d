use gateway_protocol::EventKind;
use gateway_protocol::events::{event_type, read_facts};

#[test]
fn kinds_are_classified_by_type() {
    assert_eq!(EventKind::from_type("response.created"), EventKind::Created);
    assert_eq!(EventKind::from_type("response.output_text.delta"), EventKind::Content);
    assert_eq!(EventKind::from_type("response.completed"), EventKind::Completed);
    assert_eq!(EventKind::from_type("codex.rate_limits"), EventKind::CodexRateLimits);
    assert!(EventKind::from_type("codex.response.metadata").is_internal());
    assert!(EventKind::from_type("response.failed").is_terminal());
    assert!(!EventKind::from_type("response.output_item.done").is_terminal());
    assert_eq!(EventKind::from_type("keepalive"), EventKind::Other);
}

#[test]
fn completed_events_yield_id_usage_and_status() {
    let data = br#"{"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","status":"completed","model":"gpt-5.4","service_tier":"default","output":[],"usage":{"input_tokens":1200,"input_tokens_details":{"cached_tokens":1024},"output_tokens":300,"output_tokens_details":null,"total_tokens":1500}}}"#;
    let facts = read_facts(data);
    assert_eq!(facts.response_id.as_deref(), Some("resp_1"));
    assert_eq!(facts.status.as_deref(), Some("completed"));
    let usage = facts.usage.expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.cached_input_tokens(), usage.output_tokens, usage.total()),
        (1200, 1024, 300, 1500)
    );
    assert_eq!(usage.reasoning_tokens(), 0);
    assert_eq!(event_type(data).as_deref(), Some("response.completed"));
}

#[test]
fn failures_and_error_events_yield_their_code() {
    let failed = br#"{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"boom"}}}"#;
    assert_eq!(read_facts(failed).error_code.as_deref(), Some("server_error"));
    let error = br#"{"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null}"#;
    assert_eq!(read_facts(error).error_code.as_deref(), Some("rate_limit_exceeded"));
    let ws_error = br#"{"type":"error","status":429,"error":{"type":"usage_limit_reached","message":"limit"}}"#;
    assert_eq!(read_facts(ws_error).error_code.as_deref(), Some("usage_limit_reached"));
    let incomplete = br#"{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}"#;
    assert_eq!(read_facts(incomplete).incomplete_reason.as_deref(), Some("max_output_tokens"));
}

#[test]
fn malformed_payloads_give_no_facts_and_no_panic() {
    assert_eq!(read_facts(b"{not json"), Default::default());
    assert_eq!(read_facts(b"[1,2]"), Default::default());
}

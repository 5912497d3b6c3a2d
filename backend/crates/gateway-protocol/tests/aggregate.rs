use gateway_protocol::EventKind;
use gateway_protocol::aggregate::Aggregator;

#[test]
fn output_is_filled_from_done_items_when_the_terminal_event_has_none() {
    let mut agg = Aggregator::new();
    agg.push(
        EventKind::Created,
        br#"{"type":"response.created","response":{"id":"r1","model":"gpt-5.4","created_at":7,"output":[]}}"#,
    );
    agg.push(
        EventKind::OutputItemDone,
        br#"{"type":"response.output_item.done","output_index":1,"item":{"id":"fc","type":"function_call"}}"#,
    );
    agg.push(
        EventKind::OutputItemDone,
        br#"{"type":"response.output_item.done","output_index":0,"item":{"id":"msg","type":"message"}}"#,
    );
    agg.push(EventKind::Completed, br#"{"type":"response.completed","response":{"id":"r1","status":"completed","output":[],"usage":{"input_tokens":1}}}"#);
    let (kind, response) = agg.finish().expect("finished");
    assert_eq!(kind, EventKind::Completed);
    assert_eq!(response["object"], "response");
    assert_eq!(response["model"], "gpt-5.4");
    assert_eq!(response["output"][0]["id"], "msg");
    assert_eq!(response["output"][1]["id"], "fc");
}

#[test]
fn no_terminal_event_means_no_response() {
    let mut agg = Aggregator::new();
    agg.push(EventKind::Created, br#"{"response":{"id":"r"}}"#);
    assert!(!agg.is_finished());
    assert!(agg.finish().is_none());
}

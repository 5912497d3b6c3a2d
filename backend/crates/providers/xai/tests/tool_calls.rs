//! The way back (PROTOCOL H.4): calls of rewritten tools in the client's shape, table-driven
//! over upstream streams.

use gateway_protocol::{SseFrame, SseFramer};
use provider_xai::events::{Translated, Translator};
use provider_xai::request::prepare;
use provider_xai::tools::ToolMap;
use serde_json::{Value, json};

fn client_tools() -> Value {
    json!([
        {"type": "function", "name": "exec_command", "parameters": {"type": "object", "properties": {}}},
        {"type": "custom", "name": "apply_patch", "description": "Edit files."},
        {"type": "namespace", "name": "docs", "tools": [{"type": "function", "name": "search"}]},
    ])
}

fn tool_map() -> ToolMap {
    let body = json!({"input": "hi", "tools": client_tools()});
    prepare(&serde_json::to_vec(&body).expect("json"), "grok-4.5", "k").expect("prepared").tools
}

fn frames(events: &[Value]) -> Vec<SseFrame> {
    let mut framer = SseFramer::new();
    for event in events {
        framer.push(format!("event: {}\ndata: {event}\n\n", event["type"].as_str().expect("type")).as_bytes());
    }
    std::iter::from_fn(|| framer.next_frame().ok().flatten()).collect()
}

fn run(events: &[Value]) -> Vec<Value> {
    let mut translator = Translator::with_tools(tool_map());
    let mut out = Vec::new();
    for frame in frames(events) {
        if let Translated::Frames(clean) = translator.translate(&frame) {
            for clean in clean {
                let data: Value = serde_json::from_slice(&clean.data().expect("data")).expect("json");
                assert_eq!(clean.event_name(), data["type"].as_str(), "event name and type agree");
                out.push(data);
            }
        }
    }
    for (index, event) in out.iter().enumerate() {
        assert_eq!(event["sequence_number"], json!(index), "contiguous: {out:?}");
    }
    out
}

fn response(status: &str, output: Value) -> Value {
    json!({"id": "resp_1", "status": status, "output": output,
        "tools": [{"type": "function", "name": "apply_patch"}, {"type": "function", "name": "docs__search"}]})
}

/// An upstream stream of one function call `name` with `arguments` in two deltas.
fn call_stream(name: &str, arguments: &str) -> Vec<Value> {
    let (first, second) = arguments.split_at(arguments.len() / 2);
    let item = |status: &str, args: &str| json!({"id": "fc_1", "type": "function_call", "status": status, "call_id": "call_1", "name": name, "arguments": args});
    vec![
        json!({"type": "response.created", "response": response("in_progress", json!([]))}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": item("in_progress", "")}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": first}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": second}),
        json!({"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_1", "name": name, "arguments": arguments}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item("completed", arguments)}),
        json!({"type": "response.completed", "response": response("completed", json!([item("completed", arguments)]))}),
    ]
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().filter_map(|e| e["type"].as_str()).collect()
}

#[test]
fn calls_of_rewritten_tools_come_back_in_the_client_shape() {
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch";
    let patch_arguments = json!({"patch": patch}).to_string();
    // (case, upstream name, arguments, expected client event types, the done item)
    let cases: Vec<(&str, &str, String, Vec<&str>, Value)> = vec![
        (
            "custom apply_patch: input buffered, given as one delta and done",
            "apply_patch",
            patch_arguments.clone(),
            vec![
                "response.created",
                "response.output_item.added",
                "response.custom_tool_call_input.delta",
                "response.custom_tool_call_input.done",
                "response.output_item.done",
                "response.completed",
            ],
            json!({"id": "fc_1", "type": "custom_tool_call", "status": "completed", "call_id": "call_1",
                "name": "apply_patch", "input": patch}),
        ),
        (
            "namespace child: name and namespace back",
            "docs__search",
            r#"{"q":"grok"}"#.to_owned(),
            vec![
                "response.created",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.completed",
            ],
            json!({"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_1",
                "name": "search", "namespace": "docs", "arguments": r#"{"q":"grok"}"#}),
        ),
        (
            "plain function: unchanged",
            "exec_command",
            r#"{"cmd":"ls"}"#.to_owned(),
            vec![
                "response.created",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.completed",
            ],
            json!({"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_1",
                "name": "exec_command", "arguments": r#"{"cmd":"ls"}"#}),
        ),
    ];
    for (case, name, arguments, expected, done_item) in cases {
        let out = run(&call_stream(name, &arguments));
        assert_eq!(types(&out), expected, "{case}");
        let done = out.iter().find(|e| e["type"] == "response.output_item.done").expect("done");
        assert_eq!(done["item"], done_item, "{case}");
        let completed = out.last().expect("terminal");
        assert_eq!(completed["response"]["output"][0], done_item, "{case}: the response object too");
        assert_eq!(completed["response"]["tools"], client_tools(), "{case}: the client's tools");
        assert_eq!(out[0]["response"]["tools"], client_tools(), "{case}: in response.created too");
        let added = &out[1]["item"];
        assert_eq!(added["type"], done_item["type"], "{case}: added and done agree");
        assert_eq!(added["id"], json!("fc_1"), "{case}: the upstream item id stays");
    }
    let custom = run(&call_stream("apply_patch", &patch_arguments));
    assert_eq!(custom[1]["item"]["input"], json!(""), "added carries an empty input");
    assert_eq!(custom[2]["delta"], json!(patch));
    assert_eq!(custom[2]["item_id"], json!("fc_1"));
    assert_eq!(custom[3]["input"], json!(patch));
    assert_eq!(custom[3]["output_index"], json!(0));
    let namespaced = run(&call_stream("docs__search", r#"{"q":"grok"}"#));
    assert_eq!(namespaced[4]["name"], json!("search"), "arguments.done names the child");
}

#[test]
fn a_custom_call_without_arguments_done_gets_its_input_events_before_output_item_done() {
    let mut events = call_stream("apply_patch", r#"{"patch":"p"}"#);
    events.remove(4);
    let out = run(&events);
    assert_eq!(
        types(&out)[2..5],
        ["response.custom_tool_call_input.delta", "response.custom_tool_call_input.done", "response.output_item.done"]
    );
}

#[test]
fn custom_input_is_the_key_else_the_only_string_else_the_raw_arguments() {
    use provider_xai::tool_calls::custom_input;
    let cases = [
        (r#"{"input":"a"}"#, "input", "a"),
        (r#"{"patch":"p"}"#, "patch", "p"),
        (r#"{"text":"t"}"#, "input", "t"),
        (r#"{"a":"1","b":"2"}"#, "input", r#"{"a":"1","b":"2"}"#),
        ("not json", "input", "not json"),
    ];
    for (arguments, key, expected) in cases {
        assert_eq!(custom_input(arguments, key), expected, "{arguments}");
    }
}

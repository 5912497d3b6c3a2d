//! The response direction, streaming (`src/chat/chunks.rs`): chunks, stop sequences over
//! characters split across events, tool calls, and post-commit failures.

use gateway_protocol::SseFrame;
use gateway_protocol::chat::ChunkTranslator;
use serde_json::{Value, json};

fn frame(event: &str, data: &str) -> SseFrame {
    SseFrame::from_event(event, data.as_bytes())
}

fn created() -> SseFrame {
    frame(
        "response.created",
        r#"{"type":"response.created","response":{"id":"resp_42","model":"gpt-5.4","status":"in_progress"}}"#,
    )
}

/// A text delta whose `delta` is written verbatim (so escapes reach the translator as sent).
fn text_delta(literal: &str) -> SseFrame {
    frame(
        "response.output_text.delta",
        &format!(r#"{{"type":"response.output_text.delta","output_index":0,"delta":{literal}}}"#),
    )
}

fn completed(status: &str) -> SseFrame {
    frame(
        &format!("response.{status}"),
        &format!(
            r#"{{"type":"response.{status}","response":{{"id":"resp_42","status":"{status}","usage":{{"input_tokens":5,"output_tokens":4,"total_tokens":9}}}}}}"#
        ),
    )
}

/// Runs the frames; returns the parsed `data:` payloads (`[DONE]` as the string "[DONE]").
fn run(translator: &mut ChunkTranslator, frames: &[SseFrame]) -> Vec<Value> {
    let mut out = Vec::new();
    for frame in frames {
        out.extend(translator.push(frame));
    }
    parse(&out)
}

fn parse(bytes: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(bytes).expect("chunks are UTF-8");
    text.split("\n\n")
        .filter(|f| !f.is_empty())
        .map(|f| {
            let data = f.strip_prefix("data: ").expect("data line");
            if data == "[DONE]" { Value::String(data.to_owned()) } else { serde_json::from_str(data).expect("json") }
        })
        .collect()
}

fn content(chunks: &[Value]) -> String {
    chunks.iter().filter_map(|c| c.pointer("/choices/0/delta/content").and_then(Value::as_str)).collect()
}

fn finish(chunks: &[Value]) -> Vec<&str> {
    chunks.iter().filter_map(|c| c.pointer("/choices/0/finish_reason").and_then(Value::as_str)).collect()
}

fn translator(stops: &[&str], include_usage: bool) -> ChunkTranslator {
    ChunkTranslator::new("asked".to_owned(), stops.iter().map(|s| (*s).to_owned()).collect(), include_usage, 7)
}

#[test]
fn an_emoji_split_across_events_as_surrogate_halves_stops_exactly_before_it() {
    let mut t = translator(&["😀"], true);
    let chunks = run(
        &mut t,
        &[
            created(),
            text_delta(r#""Here it is \ud83d""#),
            text_delta(r#""\ude00 and more""#),
            text_delta(r#""tail""#),
            completed("completed"),
        ],
    );
    assert_eq!(content(&chunks), "Here it is ");
    assert_eq!(finish(&chunks), vec!["stop"]);
    // The stream was drained to its terminal event: the usage chunk and [DONE] follow.
    let usage = chunks.iter().find(|c| c.get("usage").is_some()).expect("usage chunk");
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(usage["usage"]["total_tokens"], 9);
    assert_eq!(chunks.last(), Some(&json!("[DONE]")));
    assert!(t.is_done());
}

#[test]
fn a_multi_code_point_emoji_split_between_its_code_points_stops_exactly_before_it() {
    let mut t = translator(&["👍🏽"], false);
    let chunks =
        run(&mut t, &[created(), text_delta(r#""ok 👍""#), text_delta(r#""🏽 after""#), completed("completed")]);
    assert_eq!(content(&chunks), "ok ");
    assert_eq!(finish(&chunks), vec!["stop"]);
    assert!(chunks.iter().all(|c| c.get("usage").is_none()), "no usage chunk unless asked for");
}

#[test]
fn a_lone_emoji_prefix_without_its_partner_is_released_whole() {
    let mut t = translator(&["👍🏽"], false);
    let chunks = run(&mut t, &[created(), text_delta(r#""ok 👍""#), text_delta(r#""!""#), completed("completed")]);
    assert_eq!(content(&chunks), "ok 👍!");
}

#[test]
fn the_role_chunk_opens_and_ids_follow_the_response() {
    let mut t = translator(&[], false);
    let chunks = run(&mut t, &[created(), text_delta(r#""Hel""#), text_delta(r#""lo""#), completed("completed")]);
    assert_eq!(chunks[0]["choices"][0]["delta"], json!({"role": "assistant", "content": ""}));
    for chunk in chunks.iter().filter(|c| c.is_object()) {
        assert_eq!(chunk["id"], "chatcmpl-42");
        assert_eq!(chunk["object"], "chat.completion.chunk");
        assert_eq!(chunk["model"], "gpt-5.4");
        assert_eq!(chunk["created"], 7);
    }
    assert_eq!(content(&chunks), "Hello");
}

#[test]
fn a_function_call_streams_id_and_name_first_then_arguments() {
    let mut t = translator(&[], false);
    let added = frame(
        "response.output_item.added",
        r#"{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","call_id":"call_7","name":"get","arguments":""}}"#,
    );
    let args = frame(
        "response.function_call_arguments.delta",
        r#"{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"a\""}"#,
    );
    let done = frame(
        "response.output_item.done",
        r#"{"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","call_id":"call_7","name":"get","arguments":"{\"a\":1}"}}"#,
    );
    let chunks = run(&mut t, &[created(), added, args, done, completed("completed")]);
    let calls: Vec<&Value> = chunks.iter().filter_map(|c| c.pointer("/choices/0/delta/tool_calls/0")).collect();
    assert_eq!(
        calls[0],
        &json!({"index": 0, "id": "call_7", "type": "function", "function": {"name": "get", "arguments": ""}})
    );
    let arguments: String =
        calls.iter().filter_map(|c| c.pointer("/function/arguments").and_then(Value::as_str)).collect();
    assert_eq!(arguments, "{\"a\":1}", "streamed deltas plus the suffix only the done item had");
    assert_eq!(finish(&chunks), vec!["tool_calls"]);
}

#[test]
fn incomplete_for_max_tokens_finishes_with_length() {
    let mut t = translator(&[], false);
    let incomplete = frame(
        "response.incomplete",
        r#"{"type":"response.incomplete","response":{"id":"resp_42","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}"#,
    );
    let chunks = run(&mut t, &[created(), text_delta(r#""x""#), incomplete]);
    assert_eq!(finish(&chunks), vec!["length"]);
}

#[test]
fn a_failure_after_the_commit_is_one_sanitised_error_chunk() {
    let mut t = translator(&[], false);
    let failed = frame(
        "response.failed",
        r#"{"type":"response.failed","response":{"id":"resp_42","status":"failed","error":{"code":"server_error","message":"secret tenant detail acct@example.com"}}}"#,
    );
    let chunks = run(&mut t, &[created(), text_delta(r#""x""#), failed, text_delta(r#""late""#)]);
    let errors: Vec<&Value> = chunks.iter().filter(|c| c.get("error").is_some()).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["error"]["code"], "server_error");
    assert!(!errors[0].to_string().contains("example.com"), "the upstream message is not relayed");
    assert!(!chunks.contains(&json!("[DONE]")));
    assert_eq!(content(&chunks), "x");
}

#[test]
fn the_gateway_error_event_and_an_early_end_become_error_chunks() {
    let mut t = translator(&[], false);
    let error = frame("error", r#"{"type":"error","code":"stream_interrupted","message":"m"}"#);
    let chunks = run(&mut t, &[created(), error]);
    assert_eq!(chunks.last().expect("chunk")["error"]["code"], "stream_interrupted");
    assert!(t.end_early().is_empty(), "one error only");

    let mut t = translator(&[], false);
    run(&mut t, &[created(), text_delta(r#""x""#)]);
    let end = parse(&t.end_early());
    assert_eq!(end.len(), 1);
    assert_eq!(end[0]["error"]["code"], "stream_interrupted");
}

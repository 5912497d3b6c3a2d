//! `POST {xai}/v1/chat/completions`: Chat Completions, streamed (`data:` chunks, then
//! `data: [DONE]`) or as one `chat.completion` object (PROTOCOL F, G.1).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};
use serde_json::{Value, json};

use crate::request::Received;
use crate::script::{self, tool_output_after_last_user};
use crate::state::SimState;
use crate::stream::{Delivery, sse_body, sse_response};
use crate::template::{CREATED_SENTINEL, Framing, ID_SENTINEL, Ids, Template};
use crate::turn::{Flavor, TurnSpec, split};
use crate::xai::{answer_headers, authorize, catalog, gate, quota_error, scripted_error, xai_error};

/// A resolved chat answer: the cache key of its template.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChatSpec {
    turn: TurnSpec,
    include_usage: bool,
}

impl ChatSpec {
    fn chunk(&self, delta: Value, finish: Option<&str>) -> Value {
        json!({
            "id": format!("chatcmpl-{ID_SENTINEL}"),
            "object": "chat.completion.chunk",
            "created": CREATED_SENTINEL,
            "model": self.turn.model,
            "system_fingerprint": "fp_upstream_sim",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
    }

    fn usage(&self) -> Value {
        let u = &self.turn.usage;
        json!({
            "prompt_tokens": u.input,
            "completion_tokens": u.output,
            "total_tokens": u.input + u.output,
            "prompt_tokens_details": {"cached_tokens": u.cached},
            "completion_tokens_details": {"reasoning_tokens": u.reasoning},
        })
    }

    fn finish_reason(&self) -> &'static str {
        if self.turn.tool.is_some() {
            "tool_calls"
        } else if matches!(self.turn.end, crate::turn::End::Incomplete { .. }) {
            "length"
        } else {
            "stop"
        }
    }

    fn build(&self) -> Template {
        let call_id = format!("call_{ID_SENTINEL}");
        let mut chunks = vec![self.chunk(json!({"role": "assistant", "content": ""}), None)];
        if let Some(text) = &self.turn.text {
            for piece in split(text, self.turn.deltas) {
                chunks.push(self.chunk(json!({"content": piece}), None));
            }
        }
        let mut tool_calls = Vec::new();
        if let Some((name, args)) = &self.turn.tool {
            chunks.push(self.chunk(
                json!({"tool_calls": [{"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
                None,
            ));
            chunks.push(self.chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": args}}]}), None));
            tool_calls.push(json!({"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}));
        }
        chunks.push(self.chunk(json!({}), Some(self.finish_reason())));
        if self.include_usage {
            let mut last = self.chunk(json!({}), None);
            last["choices"] = json!([]);
            last["usage"] = self.usage();
            chunks.push(last);
        }
        let mut message = json!({"role": "assistant", "content": self.turn.text, "refusal": null});
        if !tool_calls.is_empty() {
            message["tool_calls"] = Value::Array(tool_calls);
        }
        let completion = json!({
            "id": format!("chatcmpl-{ID_SENTINEL}"),
            "object": "chat.completion",
            "created": CREATED_SENTINEL,
            "model": self.turn.model,
            "system_fingerprint": "fp_upstream_sim",
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason(), "logprobs": null}],
            "usage": self.usage(),
        });
        let events: Vec<(String, Value)> = chunks.into_iter().map(|c| (String::new(), c)).collect();
        Template::build(&events, &completion, Framing::DataWithDone)
    }
}

pub async fn create(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    let headers = &received.headers;
    let authorized = gate(&state, headers).and_then(|()| authorize(&state, headers));
    let account_id = authorized.as_ref().ok().map(|a| a.id.clone());
    state.record("POST", &received.uri, headers, &received.body, account_id);
    let account = match authorized {
        Ok(account) => account,
        Err(response) => return response,
    };
    let invalid =
        |message: &str| xai_error(StatusCode::BAD_REQUEST, "Client specified an invalid argument", message, headers);
    let body = match received.json() {
        Ok(body) => body,
        Err(message) => return invalid(&message),
    };
    if !body.get("messages").is_some_and(Value::is_array) {
        return invalid("messages must be an array");
    }
    let directive = match script::for_request(&body, headers, state.pop_script(&account.id)) {
        Ok(directive) => directive,
        Err(message) => return invalid(&message),
    };
    if let Some(key) = directive.codex_only_key() {
        return invalid(&format!("sim directive key `{key}` is served on the Codex backend only"));
    }
    if let Some(ms) = directive.header_delay_ms {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    if let Some(status) = directive.status {
        return scripted_error(status, &directive, headers);
    }
    let model = body.get("model").and_then(Value::as_str).unwrap_or("grok-4.5");
    if !catalog::known(model) {
        let message =
            format!("The model {model} does not exist or your team {} does not have access to it.", account.id);
        return xai_error(StatusCode::NOT_FOUND, "Some requested entity was not found", &message, headers);
    }
    if let Err(account) = state.admit(&account.id) {
        return quota_error(&account, model, headers);
    }
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let include_usage = body.pointer("/stream_options/include_usage").and_then(Value::as_bool).unwrap_or(false);
    let tool_output = tool_output_after_last_user(&body);
    let spec = ChatSpec {
        turn: TurnSpec::resolve(Flavor::Xai, model, false, &directive, tool_output.as_deref(), false),
        include_usage,
    };
    let template = state.chats.get_or_build(&spec, || spec.build());
    let ids = Ids::fresh();
    let answer = answer_headers(headers);
    if stream {
        return sse_response(
            sse_body(template, ids, Delivery::from_directive(&directive), received.control.clone()),
            answer,
        );
    }
    let mut response = Response::new(Body::from(template.final_object.render(&ids)));
    response.headers_mut().extend(answer);
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

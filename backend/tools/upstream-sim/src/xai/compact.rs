//! The public xAI API host's compaction (PROTOCOL H.1, H.6, H.12 item 5), at
//! `{XAI_API_PREFIX}/v1/responses/compact`: a separate prefix from the Grok CLI proxy, which has
//! no compaction route. Same client gate and OAuth token as the proxy. The request must be unary
//! (no `stream`) and carry the conversation without its `compaction_trigger`; reasoning
//! ciphertext must be the caller's own. The answer is one JSON response object whose output is
//! the request's user/developer messages and one `compaction` item sealed to the account.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;
use http::StatusCode;
use serde_json::{Value, json};

use crate::ids::{now_unix, token};
use crate::request::{Received, json_response_with};
use crate::state::SimState;
use crate::xai::{answer_headers, authorize, catalog, gate, reasoning, xai_error};

/// Path prefix of the simulated `api.x.ai`.
pub const XAI_API_PREFIX: &str = "/xai-api";

pub async fn compact(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    let headers = &received.headers;
    let authorized = gate(&state, headers).and_then(|()| authorize(&state, headers));
    state.record("POST", &received.uri, headers, &received.body, authorized.as_ref().ok().map(|a| a.id.clone()));
    let account = match authorized {
        Ok(account) => account,
        Err(response) => return response,
    };
    let invalid =
        |message: &str| xai_error(StatusCode::BAD_REQUEST, "Client specified an invalid argument", message, headers);
    let Ok(body) = received.json() else { return invalid("We could not parse the JSON body.") };
    if body.get("stream").is_some() {
        return invalid("Argument not supported on this endpoint: stream");
    }
    let Some(items) = body.get("input").and_then(Value::as_array) else {
        return invalid("input must be a list of items");
    };
    if items.iter().any(|i| i.get("type").and_then(Value::as_str) == Some("compaction_trigger")) {
        return invalid("Unknown input item type: compaction_trigger");
    }
    if let Some(item) = reasoning::undecryptable_item(&body, &account.id) {
        let message = format!("Could not decrypt the encrypted_content of reasoning item {item}.");
        return xai_error(StatusCode::BAD_REQUEST, "invalid_encrypted_content", &message, headers);
    }
    let model = body.get("model").and_then(Value::as_str).unwrap_or("grok-4.5");
    if !catalog::known(model) {
        return xai_error(StatusCode::NOT_FOUND, "Some requested entity was not found", "Unknown model.", headers);
    }
    let mut output: Vec<Value> = items
        .iter()
        .filter(|item| {
            item.get("type").is_none_or(|t| t == "message")
                && matches!(item.get("role").and_then(Value::as_str), Some("user" | "developer"))
        })
        .cloned()
        .collect();
    output.push(
        json!({"id": token("cmp_"), "type": "compaction", "encrypted_content": reasoning::ciphertext(&account.id)}),
    );
    let input_tokens = received.body.len() as u64 / 4 + 1;
    let answer = json!({
        "id": token("resp_"), "object": "response", "created_at": now_unix(), "model": model,
        "status": "completed", "output": output,
        "usage": {"input_tokens": input_tokens, "output_tokens": 64, "total_tokens": input_tokens + 64,
            "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}},
    });
    json_response_with(StatusCode::OK, &answer, answer_headers(headers))
}

//! `POST {base}/codex/responses/compact`: unary compaction (PROTOCOL D.3). Answers with the
//! request's user/developer messages followed by one `compaction` item. The edge phase
//! (`edge.rs`) runs first; other `sim:` keys do not apply here.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::StatusCode;
use serde_json::{Value, json};

use crate::account::Account;
use crate::codex::{answer_headers, authorize};
use crate::edge::{self, Arrival};
use crate::ids::filler_bytes;
use crate::request::{Received, json_response_with};
use crate::script;
use crate::state::SimState;

pub async fn compact(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    let authorized = authorize(&state, &received.headers);
    let account_id = authorized.as_ref().ok().map(|a| a.id.clone());
    let seq = state.record("POST", &received.uri, &received.headers, &received.body, account_id);
    let response = answer(&state, &received, authorized).await;
    state.record_set_cookies(seq, response.headers());
    response
}

async fn answer(
    state: &SimState,
    received: &Received,
    authorized: Result<Account, (Option<Account>, Response)>,
) -> Response {
    let body = received.json();
    let own = body.as_ref().ok().and_then(|b| script::for_request(b, &received.headers, None).ok());
    let token_account = match &authorized {
        Ok(account) => Some(account),
        Err((account, _)) => account.as_ref(),
    };
    let arrival = Arrival { control: received.control.as_ref(), tls: received.tls };
    if let Some(response) = edge::intercept(state, token_account, own.as_ref(), arrival).await {
        return response;
    }
    let account = match authorized {
        Ok(account) => account,
        Err((_, response)) => return response,
    };
    let headers = answer_headers(state, Some(&account), &received.headers);
    let body = match body {
        Ok(body) => body,
        Err(detail) => return json_response_with(StatusCode::BAD_REQUEST, &json!({"detail": detail}), headers),
    };
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    if !crate::codex::catalog::available(model, &account.plan) {
        let detail = format!("The '{model}' model is not supported when using Codex with a ChatGPT account.");
        return json_response_with(StatusCode::BAD_REQUEST, &json!({"detail": detail}), headers);
    }
    let mut output: Vec<Value> = body
        .get("input")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter(|item| {
                    item.get("type").is_none_or(|t| t == "message")
                        && matches!(item.get("role").and_then(Value::as_str), Some("user" | "developer"))
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    output.push(json!({
        "type": "compaction",
        "encrypted_content": format!("gAAAAAB{}", URL_SAFE_NO_PAD.encode(filler_bytes(120))),
    }));
    json_response_with(StatusCode::OK, &json!({"output": output}), headers)
}

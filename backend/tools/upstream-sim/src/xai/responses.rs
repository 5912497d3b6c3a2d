//! `POST {xai}/v1/responses` (PROTOCOL H.12 item 1): SSE when `stream: true`, else the JSON
//! response object. `store` defaults to true; stored responses serve `previous_response_id`
//! (which also inherits the earlier request's `sim:` directive) and `GET /v1/responses/{id}`.
//! Reasoning ciphertext in the input must be the calling account's own (`reasoning.rs`), else
//! 400 `invalid_encrypted_content`. Tool kinds and input items the proxy does not know are a 400
//! (`shape.rs`).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};
use serde_json::{Value, json};

use crate::request::{Received, json_response_with};
use crate::script::{self, Directive, tool_output_after_last_user};
use crate::state::{SimState, StoredResponse};
use crate::stream::{Delivery, sse_body, sse_response};
use crate::template::Ids;
use crate::turn::{Flavor, TurnSpec};
use crate::xai::{answer_headers, authorize, catalog, gate, quota_error, reasoning, scripted_error, shape, xai_error};

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
    let own = match script::for_request(&body, headers, None) {
        Ok(directive) => directive,
        Err(message) => return invalid(&message),
    };
    let inherited = match body.get("previous_response_id").and_then(Value::as_str) {
        None => Directive::default(),
        Some(id) => match state.stored_response(id).filter(|s| s.account_id == account.id) {
            Some(stored) => stored.directive,
            None => {
                return xai_error(
                    StatusCode::NOT_FOUND,
                    "not_found",
                    &format!("Response with id '{id}' not found."),
                    headers,
                );
            }
        },
    };
    if let Some(item) = reasoning::undecryptable_item(&body, &account.id) {
        return xai_error(
            StatusCode::BAD_REQUEST,
            "invalid_encrypted_content",
            &format!(
                "Could not decrypt the encrypted_content of reasoning item {item}: it was produced for another team or modified."
            ),
            headers,
        );
    }
    let mut directive = inherited.overlay(&own);
    if let Some(queued) = state.pop_script(&account.id) {
        directive = directive.overlay(&queued);
    }
    if let Some(message) = shape::refusal(&body, directive.tool.as_deref()) {
        return invalid(&message);
    }
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
    let account = match state.admit(&account.id) {
        Ok(account) => account,
        Err(account) => return quota_error(&account, model, headers),
    };
    let store = body.get("store").and_then(Value::as_bool).unwrap_or(true);
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let tool_output = tool_output_after_last_user(&body);
    let mut spec = TurnSpec::resolve(Flavor::Xai, model, store, &directive, tool_output.as_deref(), false);
    spec.cipher_owner = Some(account.id.clone());
    let template = state.turns.get_or_build(&spec, || spec.build());
    let ids = Ids::fresh();
    if store {
        let stored = StoredResponse {
            account_id: account.id.clone(),
            directive: directive.clone(),
            response: template.final_object.render(&ids),
        };
        state.store_response(ids.with_prefix("resp_"), stored);
    }
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

/// `GET {xai}/v1/responses/{id}`: a stored response of the caller's account.
pub async fn retrieve(State(state): State<Arc<SimState>>, Path(id): Path<String>, request: Request) -> Response {
    state.record("GET", &crate::request::original_uri(&request), request.headers(), b"", None);
    let headers = request.headers();
    let account = match gate(&state, headers).and_then(|()| authorize(&state, headers)) {
        Ok(account) => account,
        Err(response) => return response,
    };
    match state.stored_response(&id).filter(|s| s.account_id == account.id) {
        Some(stored) => {
            let mut response = Response::new(Body::from(stored.response));
            response.headers_mut().extend(answer_headers(headers));
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        None => xai_error(StatusCode::NOT_FOUND, "not_found", &format!("Response with id '{id}' not found."), headers),
    }
}

/// `DELETE {xai}/v1/responses/{id}`.
pub async fn delete(State(state): State<Arc<SimState>>, Path(id): Path<String>, request: Request) -> Response {
    state.record("DELETE", &crate::request::original_uri(&request), request.headers(), b"", None);
    let headers = request.headers();
    let account = match gate(&state, headers).and_then(|()| authorize(&state, headers)) {
        Ok(account) => account,
        Err(response) => return response,
    };
    let owned = state.stored_response(&id).is_some_and(|s| s.account_id == account.id);
    if owned && state.delete_stored_response(&id) {
        json_response_with(
            StatusCode::OK,
            &json!({"id": id, "object": "response", "deleted": true}),
            answer_headers(headers),
        )
    } else {
        xai_error(StatusCode::NOT_FOUND, "not_found", &format!("Response with id '{id}' not found."), headers)
    }
}

/// `GET {xai}/v1/responses`: the Grok CLI proxy does not speak WebSocket (405, PROTOCOL H.1).
pub async fn websocket_refused(request: Request) -> Response {
    xai_error(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "WebSocket is not supported on this endpoint.",
        request.headers(),
    )
}

//! `POST {base}/codex/responses`: the Codex Responses call over HTTP + SSE (PROTOCOL B).
//! The edge phase (`edge.rs`: challenge, edge page, reset before the head) runs first, before
//! the backend's own checks.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::response::Response;
use http::StatusCode;
use serde_json::{Value, json};

use crate::account::Account;
use crate::codex::{answer_headers, authorize, scripted_error_body, usage_limit_body, validate};
use crate::edge::{self, Arrival, cookie::with_set_cookies};
use crate::request::{Received, json_response_with, set_header};
use crate::script::{self, Directive, tool_output_after_last_user};
use crate::state::SimState;
use crate::stream::{Delivery, sse_body, sse_response};
use crate::template::Ids;
use crate::turn::{Flavor, TurnSpec};

pub async fn create(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    let authorized = authorize(&state, &received.headers);
    let account_id = match &authorized {
        Ok(account) => Some(account.id.clone()),
        Err((account, _)) => account.as_ref().map(|a| a.id.clone()),
    };
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
    let own = body.as_ref().map_err(String::clone).and_then(|b| script::for_request(b, &received.headers, None));
    let token_account = match &authorized {
        Ok(account) => Some(account),
        Err((account, _)) => account.as_ref(),
    };
    let arrival = Arrival { control: received.control.as_ref(), tls: received.tls };
    if let Some(response) = edge::intercept(state, token_account, own.as_ref().ok(), arrival).await {
        return response;
    }
    let account = match authorized {
        Ok(account) => account,
        Err((_, response)) => return response,
    };
    let bad_request = |detail: String, account: &Account| {
        json_response_with(
            StatusCode::BAD_REQUEST,
            &json!({"detail": detail}),
            answer_headers(state, Some(account), &received.headers),
        )
    };
    let body = match body {
        Ok(body) => body,
        Err(detail) => return bad_request(detail, &account),
    };
    if let Err(mismatch) = crate::codex::check_installation(state, &account, &received.headers, Some(&body)) {
        let body = crate::codex::installation_mismatch_body(&mismatch);
        return json_response_with(
            StatusCode::FORBIDDEN,
            &body,
            answer_headers(state, Some(&account), &received.headers),
        );
    }
    let queued = state.pop_script(&account.id);
    let directive = match (own, queued) {
        (Ok(own), Some(queued)) => own.overlay(&queued),
        (Ok(own), None) => own,
        (Err(detail), _) => return bad_request(detail, &account),
    };
    let response = backend_answer(state, received, &body, &directive, account).await;
    with_set_cookies(response, directive.set_cookie.as_deref())
}

/// The backend's answer once the directive is known: a scripted status, a refusal of the body,
/// the quota error, or the stream.
async fn backend_answer(
    state: &SimState,
    received: &Received,
    body: &Value,
    directive: &Directive,
    account: Account,
) -> Response {
    if let Some(ms) = directive.header_delay_ms {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    if let Some(status) = directive.status {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut headers = answer_headers(state, Some(&account), &received.headers);
        if let Some(value) = directive.retry_after_value() {
            set_header(&mut headers, "retry-after", value);
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            set_header(&mut headers, "x-codex-active-limit", "codex");
        }
        return json_response_with(status, &scripted_error_body(status.as_u16(), directive, &account), headers);
    }
    let model = match validate(body, &account.plan, false) {
        Ok(model) => model,
        Err(detail) => {
            let headers = answer_headers(state, Some(&account), &received.headers);
            return json_response_with(StatusCode::BAD_REQUEST, &json!({"detail": detail}), headers);
        }
    };
    let account = match state.admit(&account.id) {
        Ok(account) => account,
        Err(account) => {
            let mut headers = answer_headers(state, Some(&account), &received.headers);
            set_header(&mut headers, "x-codex-active-limit", "codex");
            return json_response_with(StatusCode::TOO_MANY_REQUESTS, &usage_limit_body(&account), headers);
        }
    };
    let tool_output = tool_output_after_last_user(body);
    let spec = TurnSpec::resolve(Flavor::Codex, &model, false, directive, tool_output.as_deref(), false);
    let template = state.turns.get_or_build(&spec, || spec.build());
    let mut headers = answer_headers(state, Some(&account), &received.headers);
    set_header(&mut headers, "openai-model", &model);
    let ids = Ids::fresh();
    let delivery = Delivery::from_directive(directive);
    let body = if delivery.is_fast() {
        let bytes = template.sse_whole.render(&ids);
        state.remember_sent(ids.with_prefix("resp_"), bytes.clone());
        // Streamed like the paced path (chunked, no Content-Length), as the real backend does.
        axum::body::Body::from_stream(futures_util::stream::once(async move { Ok::<_, std::io::Error>(bytes) }))
    } else {
        sse_body(template, ids, delivery, received.control.clone())
    };
    sse_response(body, headers)
}

//! `POST {base}/codex/responses`: the Codex Responses call over HTTP + SSE (PROTOCOL B).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::response::Response;
use http::StatusCode;
use serde_json::json;

use crate::codex::{answer_headers, authorize, scripted_error_body, usage_limit_body, validate};
use crate::request::{Received, json_response_with, set_header};
use crate::script::{self, tool_output_after_last_user};
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
    state.record("POST", &received.uri, &received.headers, &received.body, account_id);
    let account = match authorized {
        Ok(account) => account,
        Err((_, response)) => return response,
    };
    let bad_request = |detail: String, account: &crate::account::Account| {
        json_response_with(
            StatusCode::BAD_REQUEST,
            &json!({"detail": detail}),
            answer_headers(&state, Some(account), &received.headers),
        )
    };
    let body = match received.json() {
        Ok(body) => body,
        Err(detail) => return bad_request(detail, &account),
    };
    if let Err(mismatch) = crate::codex::check_installation(&state, &account, &received.headers, Some(&body)) {
        let body = crate::codex::installation_mismatch_body(&mismatch);
        return json_response_with(
            StatusCode::FORBIDDEN,
            &body,
            answer_headers(&state, Some(&account), &received.headers),
        );
    }
    let directive = match script::for_request(&body, &received.headers, state.pop_script(&account.id)) {
        Ok(directive) => directive,
        Err(detail) => return bad_request(detail, &account),
    };
    if let Some(ms) = directive.header_delay_ms {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    if let Some(status) = directive.status {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut headers = answer_headers(&state, Some(&account), &received.headers);
        if let Some(seconds) = directive.retry_after {
            set_header(&mut headers, "retry-after", seconds.to_string());
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            set_header(&mut headers, "x-codex-active-limit", "codex");
        }
        return json_response_with(status, &scripted_error_body(status.as_u16(), &directive, &account), headers);
    }
    let model = match validate(&body, &account.plan, false) {
        Ok(model) => model,
        Err(detail) => return bad_request(detail, &account),
    };
    let account = match state.admit(&account.id) {
        Ok(account) => account,
        Err(account) => {
            let mut headers = answer_headers(&state, Some(&account), &received.headers);
            set_header(&mut headers, "x-codex-active-limit", "codex");
            return json_response_with(StatusCode::TOO_MANY_REQUESTS, &usage_limit_body(&account), headers);
        }
    };
    let tool_output = tool_output_after_last_user(&body);
    let spec = TurnSpec::resolve(Flavor::Codex, &model, false, &directive, tool_output.as_deref(), false);
    let template = state.turns.get_or_build(&spec, || spec.build());
    let mut headers = answer_headers(&state, Some(&account), &received.headers);
    set_header(&mut headers, "openai-model", &model);
    let ids = Ids::fresh();
    let delivery = Delivery::from_directive(&directive);
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

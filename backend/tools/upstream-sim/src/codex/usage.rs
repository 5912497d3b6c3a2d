//! `GET {base}/wham/usage` (and `/api/codex/usage`): the account's quota (PROTOCOL D.2).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;
use http::StatusCode;
use serde_json::{Value, json};

use crate::account::{Account, Window};
use crate::codex::{answer_headers, authorize};
use crate::ids::now_unix;
use crate::request::{Received, json_response_with};
use crate::state::SimState;

/// The D.2 body for an account.
pub fn usage_body(account: &Account) -> Value {
    let now = now_unix();
    let window = |w: &Window| {
        json!({
            "used_percent": w.used_percent.round() as i64,
            "limit_window_seconds": w.window_minutes * 60,
            "reset_after_seconds": w.reset_after_seconds(now),
            "reset_at": w.reset_at,
        })
    };
    let limit_reached = account.exhausted_window().is_some();
    json!({
        "plan_type": account.plan,
        "email": account.email,
        "rate_limit": {
            "allowed": !limit_reached,
            "limit_reached": limit_reached,
            "primary_window": window(&account.primary),
            "secondary_window": window(&account.secondary),
        },
        "credits": {
            "has_credits": account.has_credits,
            "unlimited": account.unlimited,
            "balance": account.balance,
            "approx_local_messages": null,
            "approx_cloud_messages": null,
        },
        "additional_rate_limits": [],
    })
}

pub async fn usage(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let received = match Received::read(request).await {
        Ok(received) => received,
        Err(response) => return response,
    };
    let authorized = authorize(&state, &received.headers);
    let account_id = authorized.as_ref().ok().map(|a| a.id.clone());
    state.record("GET", &received.uri, &received.headers, &received.body, account_id);
    match authorized {
        Ok(account) => json_response_with(
            StatusCode::OK,
            &usage_body(&account),
            answer_headers(&state, Some(&account), &received.headers),
        ),
        Err((_, response)) => response,
    }
}

//! The control API under `/_sim/`: the same operations as the library handle, over HTTP, for
//! scripts and for tests that only have the simulator's URL.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::response::Response;
use axum::routing::{get, post};
use http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::account::{AccountPatch, AccountSpec};
use crate::config::SettingsPatch;
use crate::request::{Received, json_response};
use crate::script::Directive;
use crate::state::{DeviceDecision, SimState, StateError};
use crate::tokens::{RefreshOutcome, TokenSet};

pub fn router() -> Router<Arc<SimState>> {
    Router::new()
        .route("/health", get(|| async { json_response(StatusCode::OK, &json!({"ok": true})) }))
        .route("/accounts", get(list_accounts).post(add_account))
        .route("/accounts/{id}", get(get_account).patch(update_account).delete(remove_account))
        .route("/accounts/{id}/tokens", post(mint_tokens))
        .route("/accounts/{id}/expire-tokens", post(expire_tokens))
        .route("/accounts/{id}/revoke-tokens", post(revoke_tokens))
        .route("/accounts/{id}/script", post(push_script).delete(clear_script))
        .route("/accounts/{id}/refresh-script", post(push_refresh_script))
        .route("/requests", get(list_requests).delete(clear_requests))
        .route("/device", get(list_device_flows))
        .route("/device/approve", post(decide_device_flow))
        .route("/settings", get(get_settings).patch(update_settings))
}

/// A token set plus a ready Codex `auth.json` for it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MintedTokens {
    #[serde(flatten)]
    pub tokens: TokenSet,
    pub codex_auth_json: Value,
}

impl From<TokenSet> for MintedTokens {
    fn from(tokens: TokenSet) -> Self {
        Self { codex_auth_json: tokens.codex_auth_json(), tokens }
    }
}

fn error(error: StateError) -> Response {
    let status = match error {
        StateError::NotFound(_) => StatusCode::NOT_FOUND,
        StateError::Conflict(_) => StatusCode::CONFLICT,
        StateError::Invalid(_) => StatusCode::BAD_REQUEST,
    };
    json_response(status, &json!({"error": error.to_string()}))
}

fn ok<T: Serialize>(value: &T) -> Response {
    json_response(StatusCode::OK, &serde_json::to_value(value).unwrap_or(Value::Null))
}

async fn body<T: for<'de> Deserialize<'de>>(request: Request) -> Result<T, Response> {
    let received = Received::read(request).await?;
    let bytes = if received.body.is_empty() { &b"{}"[..] } else { &received.body[..] };
    serde_json::from_slice(bytes)
        .map_err(|e| json_response(StatusCode::BAD_REQUEST, &json!({"error": format!("invalid body: {e}")})))
}

async fn list_accounts(State(state): State<Arc<SimState>>) -> Response {
    ok(&state.accounts())
}

async fn add_account(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let spec: AccountSpec = match body(request).await {
        Ok(spec) => spec,
        Err(response) => return response,
    };
    let id = spec.id.clone();
    match state.add_account(spec) {
        Ok(tokens) => {
            let view = state.account(&id).map(|a| a.view());
            json_response(StatusCode::CREATED, &json!({"account": view, "tokens": MintedTokens::from(tokens)}))
        }
        Err(e) => error(e),
    }
}

async fn get_account(State(state): State<Arc<SimState>>, Path(id): Path<String>) -> Response {
    match state.account(&id) {
        Some(account) => ok(&account.view()),
        None => error(StateError::NotFound(format!("account {id}"))),
    }
}

async fn update_account(State(state): State<Arc<SimState>>, Path(id): Path<String>, request: Request) -> Response {
    let patch: AccountPatch = match body(request).await {
        Ok(patch) => patch,
        Err(response) => return response,
    };
    state.update_account(&id, patch).map_or_else(error, |view| ok(&view))
}

async fn remove_account(State(state): State<Arc<SimState>>, Path(id): Path<String>) -> Response {
    state.remove_account(&id).map_or_else(error, |()| ok(&json!({"removed": id})))
}

async fn mint_tokens(State(state): State<Arc<SimState>>, Path(id): Path<String>) -> Response {
    state.mint_tokens(&id, None).map_or_else(error, |tokens| ok(&MintedTokens::from(tokens)))
}

async fn expire_tokens(State(state): State<Arc<SimState>>, Path(id): Path<String>) -> Response {
    state.expire_access_tokens(&id).map_or_else(error, |count| ok(&json!({"expired": count})))
}

async fn revoke_tokens(State(state): State<Arc<SimState>>, Path(id): Path<String>) -> Response {
    state.revoke_refresh_tokens(&id).map_or_else(error, |count| ok(&json!({"revoked": count})))
}

/// `{"directive": "status=500" | {…fields…}, "count": 1}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptRequest {
    directive: Value,
    #[serde(default = "one")]
    count: usize,
}

fn one() -> usize {
    1
}

async fn push_script(State(state): State<Arc<SimState>>, Path(id): Path<String>, request: Request) -> Response {
    let script: ScriptRequest = match body(request).await {
        Ok(script) => script,
        Err(response) => return response,
    };
    let directive = match script.directive {
        Value::String(text) => Directive::parse(text.trim_start().strip_prefix("sim:").unwrap_or(&text)),
        other => serde_json::from_value(other).map_err(|e| e.to_string()),
    };
    match directive {
        Ok(directive) => state
            .push_script(&id, directive, script.count)
            .map_or_else(error, |()| ok(&json!({"queued": script.count}))),
        Err(why) => error(StateError::Invalid(why)),
    }
}

async fn clear_script(State(state): State<Arc<SimState>>, Path(id): Path<String>) -> Response {
    state.clear_script(&id);
    ok(&json!({"cleared": id}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefreshScript {
    outcomes: Vec<RefreshOutcome>,
}

async fn push_refresh_script(State(state): State<Arc<SimState>>, Path(id): Path<String>, request: Request) -> Response {
    let script: RefreshScript = match body(request).await {
        Ok(script) => script,
        Err(response) => return response,
    };
    let count = script.outcomes.len();
    state.push_refresh_outcomes(&id, script.outcomes).map_or_else(error, |()| ok(&json!({"queued": count})))
}

async fn list_requests(State(state): State<Arc<SimState>>) -> Response {
    ok(&state.requests())
}

async fn clear_requests(State(state): State<Arc<SimState>>) -> Response {
    state.clear_requests();
    ok(&json!({"cleared": true}))
}

async fn list_device_flows(State(state): State<Arc<SimState>>) -> Response {
    let flows: Vec<Value> = state
        .device_flows()
        .into_iter()
        .map(|f| json!({"provider": f.provider, "user_code": f.user_code, "status": format!("{:?}", f.status)}))
        .collect();
    ok(&flows)
}

/// `{"user_code": "ABCD-12345"?, "account_id": "acct"?, "decision": "approve|deny|expire|slow_down"?}`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct DeviceRequest {
    user_code: Option<String>,
    account_id: Option<String>,
    decision: DeviceDecision,
}

async fn decide_device_flow(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let decision: DeviceRequest = match body(request).await {
        Ok(decision) => decision,
        Err(response) => return response,
    };
    match state.decide_device_flow(decision.user_code.as_deref(), decision.account_id.as_deref(), decision.decision) {
        Ok(flow) => ok(&json!({"user_code": flow.user_code, "status": format!("{:?}", flow.status)})),
        Err(e) => error(e),
    }
}

async fn get_settings(State(state): State<Arc<SimState>>) -> Response {
    ok(&state.settings())
}

async fn update_settings(State(state): State<Arc<SimState>>, request: Request) -> Response {
    let patch: SettingsPatch = match body(request).await {
        Ok(patch) => patch,
        Err(response) => return response,
    };
    ok(&state.update_settings(patch))
}

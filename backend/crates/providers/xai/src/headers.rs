//! The header sets of PROTOCOL H.2: inference (the Grok CLI's full set) and the smaller one of
//! catalog and billing GETs. Identity is bound to each call here (the account's token and
//! user id); pooled connections carry none.

use http::{HeaderMap, HeaderName, HeaderValue};
use secrecy::ExposeSecret;

use crate::credential::XaiCredential;

/// What varies per inference call besides the credential.
pub struct CallHeaders<'a> {
    pub client_version: &'a str,
    pub model: &'a str,
    /// The gateway's request id (`idempotency-key`).
    pub request_id: &'a str,
    /// Per attempt (`x-grok-req-id`).
    pub attempt_id: &'a str,
    /// Per process (`x-grok-agent-id`).
    pub agent_id: &'a str,
    pub session: Option<&'a str>,
    /// The gateway's `send` span when a trace exporter is installed; otherwise one is made
    /// from the attempt id.
    pub traceparent: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the stored access token is not a valid header value")]
pub struct BadToken;

fn put(headers: &mut HeaderMap, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(HeaderName::from_static(name), value);
    }
}

fn bearer(headers: &mut HeaderMap, credential: &XaiCredential) -> Result<(), BadToken> {
    let value =
        HeaderValue::from_str(&format!("Bearer {}", credential.access_token.expose_secret())).map_err(|_| BadToken)?;
    headers.insert(http::header::AUTHORIZATION, value);
    Ok(())
}

pub fn inference(credential: &XaiCredential, call: &CallHeaders<'_>) -> Result<HeaderMap, BadToken> {
    let mut headers = HeaderMap::with_capacity(20);
    bearer(&mut headers, credential)?;
    put(&mut headers, "x-xai-token-auth", "xai-grok-cli");
    put(&mut headers, "x-authenticateresponse", "authenticate-response");
    if let Some(user) = &credential.user_id {
        put(&mut headers, "x-grok-user-id", user);
    }
    put(&mut headers, "x-grok-client-version", call.client_version);
    put(&mut headers, "x-grok-client-mode", "headless");
    put(&mut headers, "x-grok-client-identifier", "grok-shell");
    put(&mut headers, "user-agent", &format!("grok-shell/{} (linux; x86_64)", call.client_version));
    put(&mut headers, "content-type", "application/json");
    put(&mut headers, "accept", "text/event-stream");
    put(&mut headers, "x-grok-req-id", call.attempt_id);
    put(&mut headers, "idempotency-key", call.request_id);
    match call.traceparent {
        Some(gateway) => put(&mut headers, "traceparent", gateway),
        None => put(&mut headers, "traceparent", &traceparent(call.attempt_id)),
    }
    put(&mut headers, "x-grok-model-override", call.model);
    put(&mut headers, "x-grok-agent-id", call.agent_id);
    if let Some(session) = call.session {
        put(&mut headers, "x-grok-conv-id", session);
        put(&mut headers, "x-grok-session-id", session);
    }
    Ok(headers)
}

/// Catalog and billing GETs.
pub fn metadata(credential: &XaiCredential, client_version: &str) -> Result<HeaderMap, BadToken> {
    let mut headers = HeaderMap::with_capacity(8);
    bearer(&mut headers, credential)?;
    put(&mut headers, "x-xai-token-auth", "xai-grok-cli");
    if let Some(user) = &credential.user_id {
        put(&mut headers, "x-userid", user);
    }
    if let Some(email) = &credential.email {
        put(&mut headers, "x-email", email);
    }
    put(&mut headers, "x-grok-client-version", client_version);
    put(&mut headers, "x-grok-client-mode", "headless");
    put(&mut headers, "accept", "application/json");
    Ok(headers)
}

/// `00-<32 hex>-<16 hex>-01` from the attempt's UUID.
fn traceparent(attempt_id: &str) -> String {
    let hex: String = attempt_id.chars().filter(char::is_ascii_hexdigit).collect();
    let trace = format!("{hex:0<32}");
    let span: String = trace.chars().rev().take(16).collect();
    format!("00-{}-{}-01", &trace[..32], span)
}

//! What the edge in front of the Codex backend (Cloudflare, and the nginx / Envoy layers behind
//! it) answers on its own, before the backend sees a request: Cloudflare's managed challenge
//! (`challenge.rs`), the error pages an edge shows (`page.rs`), a TCP reset before any response
//! byte; and the `Set-Cookie` headers a directive adds to an answer (`cookie.rs`).
//!
//! Invariants:
//! - Edge answers carry none of the backend's headers (`x-request-id`, `x-codex-*`,
//!   `x-models-etag`): the edge answers before the backend, so it knows no account.
//! - A request without an edge directive, of an account that is not `challenged`, costs a few
//!   flag tests here: no allocation, and no lock unless an edge script was ever queued.

pub mod challenge;
pub mod cookie;
pub mod page;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use axum::response::Response;
use http::StatusCode;

use crate::account::Account;
use crate::conn::ConnControl;
use crate::request::{plain_error, set_header};
use crate::script::Directive;
use crate::state::SimState;

/// Where a request came in: what an edge answer needs to know about its connection.
#[derive(Clone, Copy)]
pub struct Arrival<'a> {
    /// The connection, for a reset.
    pub control: Option<&'a Arc<ConnControl>>,
    /// It came in on the TLS listener (cookies get `Secure`).
    pub tls: bool,
}

/// The edge phase of an inference request (Codex HTTP, compaction, WebSocket upgrade): the
/// account's persistent challenge first, then an edge fault of the request's own directive
/// (`own`, body and headers) overlaid with the front of the account's script when that entry
/// holds one (the entry is then consumed). `None`: the backend answers.
pub async fn intercept(
    state: &SimState,
    account: Option<&Account>,
    own: Option<&Directive>,
    arrival: Arrival<'_>,
) -> Option<Response> {
    if account.is_some_and(|a| a.challenged) {
        return Some(challenge::answer(StatusCode::FORBIDDEN, arrival.tls));
    }
    let queued = account.and_then(|a| state.pop_script_if(&a.id, Directive::acts_at_edge));
    let directive = match (own, queued) {
        (Some(own), None) => Cow::Borrowed(own),
        (None, None) => return None,
        (Some(own), Some(queued)) => Cow::Owned(own.clone().overlay(&queued)),
        (None, Some(queued)) => Cow::Owned(queued),
    };
    if !directive.acts_at_edge() {
        return None;
    }
    Some(answer(&directive, arrival).await)
}

/// The edge's answer to a directive that [`Directive::acts_at_edge`]: after `header_delay_ms`,
/// a reset (`reset_before_head`), a challenge or a page, with `Retry-After` and the directive's
/// cookies.
pub async fn answer(directive: &Directive, arrival: Arrival<'_>) -> Response {
    if let Some(ms) = directive.header_delay_ms {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    if directive.reset_before_head == Some(true) {
        return reset_before_head(arrival.control).await;
    }
    let mut response = match (directive.challenge, directive.page) {
        (Some(status), _) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::FORBIDDEN);
            challenge::answer(status, arrival.tls)
        }
        (None, Some(page)) => {
            let status = directive.status.and_then(|s| StatusCode::from_u16(s).ok()).unwrap_or(StatusCode::BAD_GATEWAY);
            page::answer(page, status, directive.message.as_deref())
        }
        (None, None) => return plain_error(StatusCode::INTERNAL_SERVER_ERROR, "no edge fault in the directive"),
    };
    if let Some(value) = directive.retry_after_value() {
        set_header(response.headers_mut(), "retry-after", value);
    }
    cookie::with_set_cookies(response, directive.set_cookie.as_deref())
}

/// Resets the connection the request came on (RST, no response byte) and waits until it is
/// gone. Over HTTP/2 this resets every stream of the connection.
async fn reset_before_head(control: Option<&Arc<ConnControl>>) -> Response {
    let Some(control) = control else {
        return plain_error(StatusCode::INTERNAL_SERVER_ERROR, "reset_before_head needs the simulator's listener");
    };
    control.kill();
    // Over HTTP/1.1 this handler is dropped with the connection; over HTTP/2 it runs in a task of
    // its own and returns once the connection is gone, into a stream nobody reads.
    control.closed().await;
    plain_error(StatusCode::BAD_GATEWAY, "connection reset")
}

/// A `cf-ray` id: 16 hex digits and the colo (`8f1c2a3b4d5e6f70-SJC`).
pub fn cf_ray() -> String {
    format!("{:016x}-SJC", crate::ids::next_u64())
}

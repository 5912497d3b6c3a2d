//! Opening an upstream WebSocket with the request profile and the account's credential, over
//! the shared connector (gateway-transport: the same TLS roots and egress route as HTTP, and a
//! bounded read buffer). The client's Codex session and turn headers go on the handshake as
//! they go on an HTTP request (`transport::forwarded_client_headers`), with the serving
//! account's identifiers (`identity.rs`).

use std::time::Duration;

use gateway_transport::Connector;
use gateway_transport::websocket::HandshakeError;
use http::{HeaderName, HeaderValue};
use secrecy::ExposeSecret;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::credential::OpenAiCredential;
use crate::request_profile::ProfileHolder;

/// The beta header value the Codex backend requires on the upgrade.
pub const RESPONSES_WEBSOCKETS_BETA: &str = "responses_websockets=2026-02-06";

pub type Socket = gateway_transport::websocket::Socket;

/// Where and how to connect; the request profile is read at each connect.
#[derive(Clone)]
pub struct WsEndpoint {
    /// The provider's one connector (TLS roots, egress route).
    pub connector: Connector,
    /// `ws(s)://…/codex/responses`
    pub url: String,
    pub profile: ProfileHolder,
    pub connect_timeout: Duration,
    /// The client API's body limit: the socket reads messages and frames at least this large.
    pub message_limit: usize,
    /// Each account's cookies, sent on its upgrades and taken from their answers.
    pub cookies: std::sync::Arc<crate::cookie_jars::AccountCookies>,
    /// The HTTP(S) form of `url`, which cookies are matched against.
    pub cookie_url: url::Url,
}

impl WsEndpoint {
    /// tungstenite's defaults (64 MiB messages, 16 MiB frames), raised to the client API's body
    /// limit when that is larger: the upstream socket never refuses what the client may send.
    pub fn config(&self) -> WebSocketConfig {
        let defaults = WebSocketConfig::default();
        let raise = |limit: Option<usize>| limit.map(|l| l.max(self.message_limit));
        defaults.max_message_size(raise(defaults.max_message_size)).max_frame_size(raise(defaults.max_frame_size))
    }

    /// The WebSocket URL of an HTTP(S) backend base.
    pub fn for_backend(backend_url: &str) -> String {
        let ws = if let Some(rest) = backend_url.strip_prefix("https://") {
            format!("wss://{rest}")
        } else if let Some(rest) = backend_url.strip_prefix("http://") {
            format!("ws://{rest}")
        } else {
            backend_url.to_owned()
        };
        format!("{ws}/codex/responses")
    }
}

/// Why a handshake did not produce a socket.
#[derive(Debug, Clone, PartialEq)]
pub enum HandshakeFailure {
    /// 426, another non-101 answer, or a network failure: use HTTP SSE on the same account.
    FallBack(String),
    /// The upgrade was refused for the account or its egress path (401, 403, 429, a challenge):
    /// classified as an HTTP answer would be (`classify.rs`).
    Refused(Box<gateway_core::provider::AttemptFailure>),
}

#[allow(clippy::too_many_arguments)]
pub async fn connect(
    endpoint: &WsEndpoint,
    account: &gateway_core::snapshot::AccountEntry,
    credential: &OpenAiCredential,
    account_id: &str,
    identity: &crate::identity::AccountIdentity,
    client_headers: &[(String, bytes::Bytes)],
    traceparent: Option<&str>,
    proxy: Option<&gateway_transport::ProxyUrl>,
) -> Result<Socket, HandshakeFailure> {
    let mut request = endpoint
        .url
        .as_str()
        .into_client_request()
        .map_err(|e| HandshakeFailure::FallBack(format!("invalid WebSocket URL: {e}")))?;
    let headers = request.headers_mut();
    for (name, value) in crate::transport::forwarded_client_headers(client_headers) {
        headers.insert(name, value);
    }
    identity.edit_headers(headers);
    let mut set = |name: &'static str, value: &str| {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    };
    if let Some(traceparent) = traceparent {
        set("traceparent", traceparent);
    }
    set("authorization", &format!("Bearer {}", credential.access_token.expose_secret()));
    set("chatgpt-account-id", account_id);
    set("openai-beta", RESPONSES_WEBSOCKETS_BETA);
    let profile = endpoint.profile.current();
    set("originator", &profile.originator);
    set("version", &profile.version);
    set("user-agent", &profile.user_agent);
    if let Some(cookie) = endpoint.cookies.header(account, &endpoint.cookie_url) {
        headers.insert(http::header::COOKIE, cookie);
    }
    let connecting = gateway_transport::websocket::connect(&endpoint.connector, request, proxy, endpoint.config());
    match tokio::time::timeout(endpoint.connect_timeout, connecting).await {
        Err(_) => Err(HandshakeFailure::FallBack("the WebSocket handshake timed out".to_owned())),
        Ok(Ok((socket, response))) => {
            endpoint.cookies.absorb(account, &endpoint.cookie_url, response.headers());
            Ok(socket)
        }
        Ok(Err(HandshakeError::Refused(response))) => {
            endpoint.cookies.absorb(account, &endpoint.cookie_url, response.headers());
            Err(refused(&response))
        }
        Ok(Err(HandshakeError::Connect(error))) => {
            Err(HandshakeFailure::FallBack(format!("the WebSocket connection failed: {error}")))
        }
        Ok(Err(HandshakeError::Failed(error))) => {
            Err(HandshakeFailure::FallBack(format!("the WebSocket handshake failed: {error}")))
        }
    }
}

/// A refused upgrade: the account's or its path's refusals (401, 403, 429, a challenge) are
/// classified like HTTP answers; anything else (426, 404, 5xx) falls back to HTTP SSE.
fn refused(response: &http::Response<Option<Vec<u8>>>) -> HandshakeFailure {
    let status = response.status().as_u16();
    let body = response.body().as_deref().unwrap_or_default();
    let body = &body[..body.len().min(crate::classify::MAX_ERROR_BODY)];
    let challenge =
        gateway_transport::error_source(response.headers(), body) == gateway_transport::ErrorSource::Challenge;
    if !challenge && !matches!(status, 401 | 403 | 429) {
        return HandshakeFailure::FallBack(format!("the upgrade was answered {status}"));
    }
    let answer = crate::classify::ErrorAnswer { status, headers: response.headers(), body };
    let mut failure = crate::classify::classify(&answer, time::OffsetDateTime::now_utc());
    failure.message = format!("{} (at the WebSocket upgrade)", failure.message);
    HandshakeFailure::Refused(Box::new(failure))
}

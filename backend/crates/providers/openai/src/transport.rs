//! HTTP SSE transport to `{backend}/codex/responses`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;
use gateway_core::catalog::{CatalogBook, plan_key};
use gateway_core::domain::{QuotaState, SendState};
use gateway_core::provider::{
    AttemptFailure, FailureClass, FrameStream, StreamFailure, UpstreamCall, UpstreamEvent, UpstreamReply,
};
use gateway_protocol::EventKind;
use gateway_protocol::SseFramer;
use gateway_protocol::request::{BodyEdit, RequestBody, SplicedBody};
use http::{HeaderMap, HeaderName, HeaderValue};

use secrecy::ExposeSecret;
use time::OffsetDateTime;

use crate::classify::{MAX_ERROR_BODY, classify, classify_transport};
use crate::credential::OpenAiCredential;
use crate::rate_limits;
use crate::request_profile::ProfileHolder;
use crate::upstream_url::UrlRefused;

/// Parameters the Codex backend refuses with `Unsupported parameter`; dropped before sending.
pub const UNSUPPORTED_PARAMETERS: &[&str] = &[
    "max_output_tokens",
    "max_tokens",
    "temperature",
    "top_p",
    "presence_penalty",
    "frequency_penalty",
    "seed",
    "metadata",
    "top_logprobs",
    "truncation",
    "user",
    "context_management",
    "stream_options",
    "safety_identifier",
    "prompt_cache_retention",
];

/// A bare string `input` goes between these: one user message with one text part.
const BARE_INPUT_PREFIX: &[u8] = br#"[{"type":"message","role":"user","content":[{"type":"input_text","text":"#;
const BARE_INPUT_SUFFIX: &[u8] = b"}]}]";

/// Client headers forwarded upstream as they are (Codex session and turn headers).
const FORWARDED_CLIENT_HEADERS: &[&str] = &[
    "x-codex-turn-state",
    "x-codex-turn-metadata",
    "x-codex-beta-features",
    "x-codex-window-id",
    "x-openai-subagent",
    "x-openai-internal-codex-residency",
    "thread-id",
];

/// Upstream response headers forwarded to clients.
const FORWARDED_UPSTREAM_HEADERS: &[&str] = &["x-codex-turn-state", "openai-model", "x-reasoning-included"];

pub struct Transport {
    http: Arc<crate::http1::Http1Client>,
    /// Path of `/codex/responses` under the backend base (e.g. `/backend-api/codex/responses`).
    responses_path: String,
    /// Read per request: a version check may move it forward at any time.
    profile: ProfileHolder,
    /// Told about `x-models-etag` on responses (a changed catalog asks for a resync).
    catalog: Arc<CatalogBook>,
    stream_idle_timeout: Duration,
}

impl Transport {
    /// The transport to `backend_url` (already through the SSRF guard). A URL the upstream
    /// client cannot use is an error: there is no fallback address.
    pub fn new(
        backend_url: &str,
        profile: ProfileHolder,
        catalog: Arc<CatalogBook>,
        stream_idle_timeout: Duration,
    ) -> Result<Self, UrlRefused> {
        let refused = |reason| UrlRefused::new(backend_url, reason);
        let http = crate::http1::Http1Client::new(backend_url).map_err(|_| refused("not usable by the HTTP client"))?;
        let uri = backend_url.parse::<http::Uri>().map_err(|_| refused("not a valid URL"))?;
        let base_path = uri.path().trim_end_matches('/');
        Ok(Self { http, responses_path: format!("{base_path}/codex/responses"), profile, catalog, stream_idle_timeout })
    }

    /// The body as the backend requires it; every other byte stays the client's. Nothing is
    /// copied: the result points into the client's body, plus the edits' own few bytes.
    pub fn upstream_body(call: &UpstreamCall<'_>) -> SplicedBody {
        Self::backend_body(call.body, call.view, call.upstream_model)
    }

    /// [`Transport::upstream_body`] of any body (`view` parsed from it).
    pub fn backend_body(body: &Bytes, view: &RequestBody, upstream_model: &str) -> SplicedBody {
        let shared = body;
        let body: &[u8] = body;
        let mut edit = BodyEdit::new();
        if view.string(body, "model").ok().flatten().as_deref() != Some(upstream_model) {
            edit.set_string("model", upstream_model);
        }
        if view.boolean(body, "stream").ok().flatten() != Some(true) {
            edit.set_bool("stream", true);
        }
        if view.boolean(body, "store").ok().flatten() != Some(false) {
            edit.set_bool("store", false);
        }
        for parameter in UNSUPPORTED_PARAMETERS {
            if view.has(parameter) {
                edit.remove(parameter);
            }
        }
        // Frames of a client WebSocket falling back to HTTP carry WebSocket-only fields.
        for parameter in ["type", "generate", "previous_response_id"] {
            if view.has(parameter) {
                edit.remove(parameter);
            }
        }
        if let Some(raw) = view.raw(body, "input")
            && raw.first() == Some(&b'"')
        {
            // A bare string input becomes one user message, the form the backend takes.
            edit.wrap("input", BARE_INPUT_PREFIX, BARE_INPUT_SUFFIX);
        }
        edit.splice(shared, view)
    }

    fn headers(&self, call: &UpstreamCall<'_>, credential: &OpenAiCredential) -> Result<HeaderMap, AttemptFailure> {
        let mut headers = HeaderMap::with_capacity(16);
        let bearer = HeaderValue::from_str(&format!("Bearer {}", credential.access_token.expose_secret()))
            .map_err(|_| local_failure("the stored access token is not a valid header value"))?;
        headers.insert(http::header::AUTHORIZATION, bearer);
        let account_id = credential.account_id.as_deref().unwrap_or(&call.account.record.external_account_id);
        if let Ok(value) = HeaderValue::from_str(account_id) {
            headers.insert(HeaderName::from_static("chatgpt-account-id"), value);
        }
        for (name, value) in call.client_headers {
            if FORWARDED_CLIENT_HEADERS.contains(&name.as_str())
                && let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_bytes(value))
            {
                headers.insert(name, value);
            }
        }
        // Codex sends `session_id`; newer clients the dash form. Upstream gets the underscore form.
        let session = call.client_headers.iter().find(|(n, _)| n == "session_id" || n == "session-id");
        if let Some(value) = session.and_then(|(_, v)| HeaderValue::from_bytes(v).ok()) {
            headers.insert(HeaderName::from_static("session_id"), value);
        }
        let request_id = call
            .client_headers
            .iter()
            .find(|(n, _)| n == "x-client-request-id")
            .and_then(|(_, v)| HeaderValue::from_bytes(v).ok())
            .or_else(|| HeaderValue::from_str(&call.request.to_string()).ok());
        if let Some(id) = request_id {
            headers.insert(HeaderName::from_static("x-client-request-id"), id);
        }
        headers.insert(http::header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let profile = self.profile.current();
        headers.insert(http::header::USER_AGENT, profile.user_agent_header.clone());
        headers.insert(HeaderName::from_static("originator"), profile.originator_header.clone());
        headers.insert(HeaderName::from_static("version"), profile.version_header.clone());
        Ok(headers)
    }

    /// Sends the call and returns at the response headers.
    pub async fn send(
        &self,
        call: &UpstreamCall<'_>,
        credential: &OpenAiCredential,
    ) -> Result<UpstreamReply, AttemptFailure> {
        self.send_body(call, credential, Self::upstream_body(call)).await
    }

    /// Sends `body` (already in the backend's form) for `call`.
    pub async fn send_body(
        &self,
        call: &UpstreamCall<'_>,
        credential: &OpenAiCredential,
        body: SplicedBody,
    ) -> Result<UpstreamReply, AttemptFailure> {
        let headers = self.headers(call, credential)?;
        let started = Instant::now();
        let sent = self.http.send(http::Method::POST, &self.responses_path, headers, body);
        let response = match tokio::time::timeout(call.header_timeout, sent).await {
            Err(_) => {
                return Err(AttemptFailure::new(
                    FailureClass::Ambiguous,
                    SendState::Ambiguous,
                    "no upstream answer before the header timeout",
                ));
            }
            Ok(Err(error)) => return Err(classify_transport(&error)),
            Ok(Ok(response)) => response,
        };
        let headers_time = started.elapsed();
        let now = OffsetDateTime::now_utc();
        let status = response.status;
        if status != 200 {
            let quota_state = if status == 429 { QuotaState::Exhausted } else { QuotaState::Unknown };
            let quota = rate_limits::from_headers(&response.headers, quota_state, now);
            let body = read_limited(response.body, MAX_ERROR_BODY, self.stream_idle_timeout).await;
            return Err(classify(status, &body, quota, now));
        }
        let quota = rate_limits::from_headers(&response.headers, QuotaState::Allowed, now);
        if let Some(etag) = response.headers.get("x-models-etag").and_then(|v| v.to_str().ok()) {
            self.catalog.observe_etag(plan_key(call.account), etag);
        }
        let served_model = response.headers.get("openai-model").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let forward_headers = FORWARDED_UPSTREAM_HEADERS
            .iter()
            .filter_map(|name| {
                let value = response.headers.get(*name)?.to_str().ok()?;
                Some(((*name).to_owned(), value.to_owned()))
            })
            .collect();
        Ok(UpstreamReply {
            frames: frames(response.body, self.stream_idle_timeout),
            quota,
            served_model,
            forward_headers,
            connect_time: None,
            headers_time,
            transport: gateway_core::domain::Transport::Http,
        })
    }
}

/// The account's stored credential cannot be sent: the account's problem, not the upstream's.
fn local_failure(message: &str) -> AttemptFailure {
    AttemptFailure::new(
        FailureClass::AccountUnusable { reason: "credential_malformed".to_owned() },
        SendState::NotSent,
        message,
    )
}

/// Reads at most `limit` bytes of an error body (bounded in time too).
async fn read_limited(mut response: crate::http1::Body, limit: usize, timeout: Duration) -> Vec<u8> {
    let mut body = Vec::new();
    let read = async {
        while let Some(Ok(chunk)) = response.chunk().await {
            let room = limit.saturating_sub(body.len());
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if body.len() >= limit {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(timeout.min(Duration::from_secs(10)), read).await;
    body
}

/// The response body as SSE frames, with an idle timeout between chunks.
fn frames(response: crate::http1::Body, idle: Duration) -> FrameStream {
    struct State {
        body: crate::http1::Body,
        framer: SseFramer,
        finished: bool,
    }
    let state = State { body: response, framer: SseFramer::new(), finished: false };
    futures_util::stream::unfold(state, move |mut state| async move {
        loop {
            if state.finished {
                return None;
            }
            match state.framer.next_frame() {
                Ok(Some(frame)) => match frame.event_name().map(EventKind::from_type) {
                    // Gateway-internal frames are consumed: their facts go on, the frame does not.
                    Some(EventKind::CodexRateLimits) => {
                        let now = OffsetDateTime::now_utc();
                        if let Some(facts) = frame.data().and_then(|d| rate_limits::from_event(&d, now)) {
                            return Some((Ok(UpstreamEvent::Quota(Box::new(facts))), state));
                        }
                        continue;
                    }
                    Some(EventKind::CodexMetadata) => continue,
                    _ => return Some((Ok(UpstreamEvent::Frame(frame)), state)),
                },
                Ok(None) => {}
                Err(err) => {
                    state.finished = true;
                    return Some((Err(StreamFailure { message: err.to_string(), idle_timeout: false }), state));
                }
            }
            match tokio::time::timeout(idle, state.body.chunk()).await {
                Err(_) => {
                    state.finished = true;
                    let failure =
                        StreamFailure { message: "the upstream stream went idle".to_owned(), idle_timeout: true };
                    return Some((Err(failure), state));
                }
                Ok(Some(Ok(chunk))) => state.framer.push(&chunk),
                Ok(Some(Err(_))) => {
                    state.finished = true;
                    let failure =
                        StreamFailure { message: "the upstream stream broke".to_owned(), idle_timeout: false };
                    return Some((Err(failure), state));
                }
                Ok(None) => {
                    state.finished = true;
                    if state.framer.has_remainder() {
                        let failure = StreamFailure {
                            message: "the upstream stream ended mid-event".to_owned(),
                            idle_timeout: false,
                        };
                        return Some((Err(failure), state));
                    }
                    return None;
                }
            }
        }
    })
    .boxed()
}

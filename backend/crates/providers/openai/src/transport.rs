//! HTTP SSE transport to `{backend}/codex/responses`, over the shared upstream client
//! (gateway-transport: HTTP/2 when the backend agrees by ALPN, else HTTP/1.1).

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;
use gateway_core::catalog::{CatalogBook, plan_key};
use gateway_core::domain::{QuotaState, SendState};
use gateway_core::fault::Fault;
use gateway_core::provider::{
    AttemptFailure, FrameStream, Operation, StreamFailure, UpstreamCall, UpstreamEvent, UpstreamReply,
};
use gateway_protocol::EventKind;
use gateway_protocol::SseFramer;
use gateway_protocol::request::{BodyEdit, RequestBody, SplicedBody};
use gateway_transport::{Body, HttpClient, HttpRequest, HttpResponse};
use http::{HeaderMap, HeaderName, HeaderValue};

use secrecy::ExposeSecret;
use time::OffsetDateTime;

use crate::classify::{ErrorAnswer, MAX_ERROR_BODY, classify, classify_transport};
use crate::codex_turn::CodexTurn;
use crate::cookie_jars::AccountCookies;
use crate::credential::OpenAiCredential;
use crate::identity::{AccountIdentity, IdentityKey};
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
pub(crate) const BARE_INPUT_PREFIX: &[u8] =
    br#"[{"type":"message","role":"user","content":[{"type":"input_text","text":"#;
pub(crate) const BARE_INPUT_SUFFIX: &[u8] = b"}]}]";

/// Client headers forwarded upstream, over HTTP and on the WebSocket handshake (Codex session
/// and turn headers, and the W3C trace context so the upstream call joins the client's trace),
/// besides every `x-codex-*` header. `session-id` and `session_id` keep the client's spelling;
/// identifiers among them carry the serving account's values (`identity.rs`).
const FORWARDED_CLIENT_HEADERS: &[&str] = &[
    "traceparent",
    "tracestate",
    "x-openai-subagent",
    "x-openai-internal-codex-residency",
    "thread-id",
    "session-id",
    "session_id",
    "x-client-request-id",
];

/// The client's Codex headers that go upstream ([`FORWARDED_CLIENT_HEADERS`] and `x-codex-*`),
/// before the identity edits; values that are not valid header values are left out.
pub(crate) fn forwarded_client_headers(client: &[(String, Bytes)]) -> Vec<(HeaderName, HeaderValue)> {
    client
        .iter()
        .filter(|(name, _)| name.starts_with("x-codex-") || FORWARDED_CLIENT_HEADERS.contains(&name.as_str()))
        .filter_map(|(name, value)| {
            Some((HeaderName::from_bytes(name.as_bytes()).ok()?, HeaderValue::from_bytes(value).ok()?))
        })
        .collect()
}

/// Upstream response headers forwarded to clients.
const FORWARDED_UPSTREAM_HEADERS: &[&str] = &["x-codex-turn-state", "openai-model", "x-reasoning-included"];

pub struct Transport {
    http: HttpClient,
    /// `{backend}/codex/responses`.
    responses_url: http::Uri,
    /// `{backend}/codex/responses/compact` (unary JSON, `compact.rs`).
    compact_url: http::Uri,
    /// Read per request: a version check may move it forward at any time.
    profile: ProfileHolder,
    /// Told about `x-models-etag` on responses (a changed catalog asks for a resync).
    catalog: Arc<CatalogBook>,
    stream_idle_timeout: Duration,
    /// Derives each account's conversation identifiers (`identity.rs`).
    identity_key: IdentityKey,
    /// Each account's cookies (`cookie_jars.rs`), matched against `cookie_url`.
    cookies: Arc<AccountCookies>,
    cookie_url: url::Url,
}

impl Transport {
    /// The transport to `backend_url` (already through the SSRF guard). A URL the upstream
    /// client cannot use is an error: there is no fallback address.
    pub fn new(
        http: HttpClient,
        backend_url: &str,
        profile: ProfileHolder,
        catalog: Arc<CatalogBook>,
        stream_idle_timeout: Duration,
        identity_key: IdentityKey,
        cookies: Arc<AccountCookies>,
    ) -> Result<Self, UrlRefused> {
        let refused = |reason| UrlRefused::new(backend_url, reason);
        let url = format!("{}/codex/responses", backend_url.trim_end_matches('/'));
        let responses_url = url.parse::<http::Uri>().map_err(|_| refused("not a valid URL"))?;
        gateway_transport::Target::from_uri(&responses_url).map_err(|_| refused("not usable by the HTTP client"))?;
        let compact_url = format!("{url}/compact").parse::<http::Uri>().map_err(|_| refused("not a valid URL"))?;
        let cookie_url = url::Url::parse(&url).map_err(|_| refused("not a valid URL"))?;
        Ok(Self {
            http,
            responses_url,
            compact_url,
            profile,
            catalog,
            stream_idle_timeout,
            identity_key,
            cookies,
            cookie_url,
        })
    }

    /// The identifiers `call`'s account presents upstream.
    pub fn identity(&self, call: &UpstreamCall<'_>, credential: &OpenAiCredential) -> AccountIdentity {
        AccountIdentity::of(call.account, credential, &self.identity_key)
    }

    /// The body as the backend requires it (with an originated turn's fields, `codex_turn.rs`);
    /// every other byte stays the client's. Nothing is copied: the result points into the
    /// client's body, plus the edits' own few bytes.
    pub fn upstream_body(call: &UpstreamCall<'_>, identity: &AccountIdentity, turn: Option<&CodexTurn>) -> SplicedBody {
        if call.operation == Operation::ResponsesCompact {
            return crate::compact::body(call.body, call.view, call.upstream_model, identity);
        }
        let mut edit = Self::backend_edit(call.body, call.view, call.upstream_model, identity);
        if let Some(turn) = turn {
            turn.edit_body(call.body, call.view, &mut edit);
        }
        edit.splice(call.body, call.view)
    }

    /// [`Transport::upstream_body`] of any body (`view` parsed from it), as the client sent it.
    pub fn backend_body(
        body: &Bytes,
        view: &RequestBody,
        upstream_model: &str,
        identity: &AccountIdentity,
    ) -> SplicedBody {
        Self::backend_edit(body, view, upstream_model, identity).splice(body, view)
    }

    /// The edits of [`Transport::backend_body`].
    fn backend_edit(body: &[u8], view: &RequestBody, upstream_model: &str, identity: &AccountIdentity) -> BodyEdit {
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
        identity.edit_body(body, view, &mut edit);
        edit
    }

    /// The request headers, in the order Codex sends them (its own `x-codex-*` and session
    /// headers first, then `accept`, `content-type`, credentials, `originator`, `User-Agent`,
    /// `accept-encoding`):
    /// HTTP/2 shows a server the order, so it is part of the fidelity (`45-codex-fidelity.sh`).
    fn headers(&self, call: &UpstreamCall<'_>, credential: &OpenAiCredential) -> Result<HeaderMap, AttemptFailure> {
        let mut headers = HeaderMap::with_capacity(16);
        for (name, value) in forwarded_client_headers(call.client_headers) {
            headers.insert(name, value);
        }
        // With a trace exporter the upstream call is a child of the gateway's `send` span.
        if let Some(value) = call.traceparent.and_then(|t| HeaderValue::from_str(t).ok()) {
            headers.insert(HeaderName::from_static("traceparent"), value);
        }
        // The client's identifiers become the account's (`identity.rs`), before the gateway adds
        // its own request id.
        self.identity(call, credential).edit_headers(&mut headers);
        let request_id = HeaderName::from_static("x-client-request-id");
        if !headers.contains_key(&request_id)
            && let Ok(id) = HeaderValue::from_str(&call.request.to_string())
        {
            headers.insert(request_id, id);
        }
        let accept =
            if call.operation == Operation::ResponsesCompact { "application/json" } else { "text/event-stream" };
        headers.insert(http::header::ACCEPT, HeaderValue::from_static(accept));
        headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let bearer = HeaderValue::from_str(&format!("Bearer {}", credential.access_token.expose_secret()))
            .map_err(|_| local_failure("the stored access token is not a valid header value"))?;
        headers.insert(http::header::AUTHORIZATION, bearer);
        let account_id = credential.account_id.as_deref().unwrap_or(&call.account.record.external_account_id);
        if let Ok(value) = HeaderValue::from_str(account_id) {
            headers.insert(HeaderName::from_static("chatgpt-account-id"), value);
        }
        // This account's cookies on this path, never another's (invariant 7).
        if let Some(cookie) = self.cookies.header(call.account, &self.cookie_url) {
            headers.insert(http::header::COOKIE, cookie);
        }
        let profile = self.profile.current();
        headers.insert(HeaderName::from_static("originator"), profile.originator_header.clone());
        headers.insert(http::header::USER_AGENT, profile.user_agent_header.clone());
        headers.insert(HeaderName::from_static("version"), profile.version_header.clone());
        // Codex's value, last as Codex sends it; the transport decodes the answer (decision 0234).
        headers.insert(http::header::ACCEPT_ENCODING, HeaderValue::from_static(gateway_transport::ACCEPT_ENCODING));
        Ok(headers)
    }

    /// Sends the call and returns at the response headers.
    pub async fn send(
        &self,
        call: &UpstreamCall<'_>,
        credential: &OpenAiCredential,
    ) -> Result<UpstreamReply, AttemptFailure> {
        let identity = self.identity(call, credential);
        let turn = CodexTurn::for_call(call, &identity, OffsetDateTime::now_utc());
        self.send_body(call, credential, Self::upstream_body(call, &identity, turn.as_ref()), turn.as_ref()).await
    }

    /// Sends `body` (already in the backend's form) for `call`; `turn`: a turn the gateway
    /// originates for a non-Codex client (its headers, the body compressed).
    pub async fn send_body(
        &self,
        call: &UpstreamCall<'_>,
        credential: &OpenAiCredential,
        body: SplicedBody,
        turn: Option<&CodexTurn>,
    ) -> Result<UpstreamReply, AttemptFailure> {
        let (headers, body) = crate::codex_turn::outbound(turn, self.headers(call, credential)?, body).await;
        let compact = call.operation == Operation::ResponsesCompact;
        let started = Instant::now();
        let request = HttpRequest {
            method: http::Method::POST,
            uri: if compact { self.compact_url.clone() } else { self.responses_url.clone() },
            headers,
            body: Body::from_parts(body.parts().iter().cloned()),
        };
        let proxy = crate::egress::proxy_of(call.account)?;
        let sent = self.http.send(request, proxy.as_ref());
        let response = match tokio::time::timeout(call.header_timeout, sent).await {
            Err(_) => {
                return Err(AttemptFailure::new(
                    Fault::UpstreamHeadTimeout,
                    SendState::Ambiguous,
                    "no upstream answer before the header timeout",
                ));
            }
            Ok(Err(error)) => return Err(classify_transport(&error)),
            Ok(Ok(response)) => response,
        };
        let headers_time = started.elapsed();
        self.cookies.absorb(call.account, &self.cookie_url, &response.headers);
        let now = OffsetDateTime::now_utc();
        let status = response.status.as_u16();
        if status != 200 {
            let headers = response.headers.clone();
            let body = read_limited(response, MAX_ERROR_BODY, self.stream_idle_timeout).await;
            return Err(classify(&ErrorAnswer { status, headers: &headers, body: &body }, now));
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
            frames: if compact {
                crate::compact::frames(response, self.stream_idle_timeout)
            } else {
                frames(response, self.stream_idle_timeout)
            },
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
    AttemptFailure::new(Fault::CredentialMalformed, SendState::NotSent, message)
}

/// Reads at most `limit` bytes of an error body (bounded in time too).
async fn read_limited(response: HttpResponse, limit: usize, timeout: Duration) -> Vec<u8> {
    tokio::time::timeout(timeout.min(Duration::from_secs(10)), response.prefix(limit)).await.unwrap_or_default()
}

/// The response body as SSE frames, with an idle timeout between chunks.
fn frames(mut response: HttpResponse, idle: Duration) -> FrameStream {
    struct State {
        body: HttpResponse,
        framer: SseFramer,
        finished: bool,
    }
    response.release_headers();
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

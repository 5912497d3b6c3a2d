//! The provider port: what the engine asks of an upstream provider, and what it gets back.
//!
//! One [`Provider::execute`] uses exactly one account's credential and prepares one cold stream
//! (invariant 5): no hidden account switching and no retry inside a provider. Identity is bound
//! explicitly to each call (invariant 7): the account and its credential travel in the call,
//! never in a reused connection.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures_core::Stream;
use gateway_protocol::request::RequestBody;
use gateway_protocol::{ApiError, SseFrame};
use time::OffsetDateTime;

use crate::catalog::SyncedEntry;
use crate::domain::{AccountId, ClientKeyId, ProviderKind, QuotaFacts, RequestId, SendState};
use crate::fault::{Fault, FaultRow};
use crate::snapshot::AccountEntry;

/// What the client asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// `POST /v1/responses`
    ResponsesCreate,
    /// `POST /v1/responses/compact`
    ResponsesCompact,
    /// `POST /v1/responses/review`: a Responses turn marked as a review sub-agent.
    ResponsesReview,
    /// `POST /v1/chat/completions`, converted to a Responses request by the API layer.
    ChatCompletions,
    /// `POST /v1/zed/edit-predictions`, converted to a Responses request by the API layer.
    ZedEditPrediction,
}

impl Operation {
    /// The name recorded in `model_requests.operation`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::ResponsesCreate => "responses.create",
            Self::ResponsesCompact => "responses.compact",
            Self::ResponsesReview => "responses.review",
            Self::ChatCompletions => "chat.completions",
            Self::ZedEditPrediction => "zed.edit_predictions",
        }
    }

    /// Whether a failed attempt may be replayed on another account before the commit.
    pub const fn replayable(self) -> bool {
        true
    }
}

/// How the provider reaches upstream for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamRoute {
    /// A fresh HTTP call (SSE): the usual path of HTTP clients.
    Http,
    /// The upstream WebSocket bound to this client conversation (a client WebSocket session):
    /// reusing it keeps the upstream's per-socket state for the next turn.
    Socket { conversation: u64 },
    /// Continue `response_id` on the live upstream socket that produced it, and bind that socket
    /// to `conversation` when given. Fails with [`Fault::PreviousResponseNotFound`] when no live
    /// socket holds it.
    Continue { response_id: String, conversation: Option<u64> },
}

impl UpstreamRoute {
    pub fn is_continuation(&self) -> bool {
        matches!(self, Self::Continue { .. })
    }
}

/// One attempt's call to a provider.
pub struct UpstreamCall<'a> {
    pub request: RequestId,
    /// 1-based attempt number within the request.
    pub attempt: u32,
    pub operation: Operation,
    /// The client key the request came with (what a provider keeps for it is budgeted by key).
    pub client_key: ClientKeyId,
    pub account: &'a AccountEntry,
    /// The client's body exactly as received, and its parsed top level.
    pub body: &'a Bytes,
    pub view: &'a RequestBody,
    /// The model to send upstream (after the controlled alias mapping).
    pub upstream_model: &'a str,
    /// Whether the client asked for a stream (`stream: true`).
    pub client_stream: bool,
    /// The client's headers (lower-case names); the provider forwards only what it allows.
    pub client_headers: &'a [(String, Bytes)],
    /// Bound on the time until the upstream answers with headers.
    pub header_timeout: Duration,
    pub route: &'a UpstreamRoute,
    /// The W3C `traceparent` naming the gateway's `send` span, when a trace exporter is
    /// installed: sent upstream instead of the client's. `None`: the client's is forwarded.
    pub traceparent: Option<&'a str>,
}

/// What an upstream stream yields: frames for the client, and facts the provider consumed from
/// gateway-internal frames (which the client never sees).
#[derive(Debug, Clone)]
pub enum UpstreamEvent {
    /// A frame as the client will receive it (raw upstream bytes for byte-transparent providers,
    /// re-synthesised for translating ones).
    Frame(SseFrame),
    /// Quota facts carried in-stream (e.g. `codex.rate_limits`).
    Quota(Box<QuotaFacts>),
}

pub type FrameStream = Pin<Box<dyn Stream<Item = Result<UpstreamEvent, StreamFailure>> + Send>>;

/// An upstream that accepted the call: headers are in, the body is not yet read.
pub struct UpstreamReply {
    pub frames: FrameStream,
    /// Quota facts read from the response headers, if the upstream sent any.
    pub quota: Option<QuotaFacts>,
    /// The model the upstream says served the call, when it says.
    pub served_model: Option<String>,
    /// Upstream response headers meant for the client (a provider's allowlist).
    pub forward_headers: Vec<(String, String)>,
    pub connect_time: Option<Duration>,
    pub headers_time: Duration,
    /// The upstream transport that served the call (a WebSocket answer can be continued).
    pub transport: crate::domain::Transport,
}

/// The stream broke after the upstream accepted the call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StreamFailure {
    pub message: String,
    /// The upstream went quiet for longer than the idle timeout.
    pub idle_timeout: bool,
}

/// A failed attempt: the row of the fault table it is (`crate::fault`), and what the upstream
/// said that the row's rules need.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptFailure {
    pub fault: Fault,
    /// How far the call got. `NotSent` only when nothing left the process.
    pub send_state: SendState,
    pub http_status: Option<u16>,
    /// A short, secret-free description for logs and ops events.
    pub message: String,
    /// Quota facts the failure carried (e.g. rate-limit headers on a 429).
    pub quota: Option<Box<QuotaFacts>>,
    /// The upstream's own deadline for this fault: a usage limit's reset, or its `Retry-After`.
    pub until: Option<OffsetDateTime>,
    /// For a fault the request caused ([`Fault::UpstreamRejected`]): the error the client gets.
    pub refusal: Option<Box<ApiError>>,
}

impl AttemptFailure {
    pub fn new(fault: Fault, send_state: SendState, message: impl Into<String>) -> Self {
        Self { fault, send_state, http_status: None, message: message.into(), quota: None, until: None, refusal: None }
    }

    /// The request refused for itself: `error` is what the client gets.
    pub fn rejected(error: ApiError, send_state: SendState, message: impl Into<String>) -> Self {
        let mut failure = Self::new(Fault::UpstreamRejected, send_state, message);
        failure.refusal = Some(Box::new(error));
        failure
    }

    pub fn with_status(mut self, status: u16) -> Self {
        self.http_status = Some(status);
        self
    }

    /// With the upstream's deadline (a reset or `Retry-After`).
    pub fn until(mut self, until: Option<OffsetDateTime>) -> Self {
        self.until = until;
        self
    }

    /// A stable code for the attempt record, the metrics and the logs: the fault's.
    pub fn code(&self) -> &'static str {
        self.fault.as_str()
    }

    /// The fault table's row for this failure.
    pub fn row(&self) -> &'static FaultRow {
        self.fault.row()
    }
}

/// A model the provider can serve, for `/v1/models` and the route plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    pub id: String,
    pub owned_by: &'static str,
}

/// An upstream provider.
#[async_trait]
pub trait Provider: Send + Sync + 'static {
    fn kind(&self) -> ProviderKind;

    /// Whether `account` can serve `model` (its catalog and plan). Called on the hot path: must
    /// be answered from memory.
    fn supports_model(&self, account: &AccountEntry, model: &str) -> bool;

    /// Changes whenever the answers of [`supports_model`](Self::supports_model) may change (a
    /// catalog was installed). The engine keys its candidate pools by it, so a pool admitted
    /// with the live catalog follows that catalog. A provider whose answers never change keeps
    /// the default.
    fn catalog_generation(&self) -> u64 {
        0
    }

    /// The models `account` can serve, from memory.
    fn models(&self, account: &AccountEntry) -> Vec<ModelInfo>;

    /// The upstream's own catalog entry of `model` for `account` (what the Codex catalog route
    /// serves), from memory. A provider whose catalogs carry no such entries keeps the default.
    fn catalog_entry(&self, account: &AccountEntry, model: &str) -> Option<SyncedEntry> {
        let _ = (account, model);
        None
    }

    /// Whether the upstream keeps the response of this HTTP request, so that a later
    /// `previous_response_id` can continue it natively on the same account (xAI with
    /// `store: true`, PROTOCOL H.3). The engine then pins the response as it pins an upstream
    /// WebSocket's, and routes its continuation as [`UpstreamRoute::Continue`] to its owner.
    fn stores_http_response(&self, body: &[u8], view: &RequestBody) -> bool {
        let _ = (body, view);
        false
    }

    /// Whether this provider can continue a `previous_response_id` it did not pin, or whose
    /// owner cannot serve, on any of its accounts from a transcript it keeps itself (xAI's
    /// replay continuation, PROTOCOL H.3). The engine then routes such a request to this
    /// provider as an ordinary [`UpstreamRoute::Http`] call carrying the id in its body; the
    /// provider answers [`Fault::PreviousResponseNotFound`] when it holds no transcript.
    fn replays_continuations(&self) -> bool {
        false
    }

    /// Sends one call with one account's credential; returns once the upstream answered with
    /// headers (a cold stream) or failed.
    async fn execute(&self, call: UpstreamCall<'_>) -> Result<UpstreamReply, AttemptFailure>;

    /// After an `Unauthorized` failure: renew the account's credential once (refresh). `Ok`
    /// means the next execute on this account uses the new credential.
    async fn recover_credential(&self, account: AccountId) -> Result<(), AttemptFailure>;
}

/// The providers the gateway runs with, by kind.
#[derive(Clone, Default)]
pub struct ProviderSet {
    providers: Vec<Arc<dyn Provider>>,
}

impl ProviderSet {
    pub fn new(providers: Vec<Arc<dyn Provider>>) -> Self {
        Self { providers }
    }

    pub fn get(&self, kind: ProviderKind) -> Option<&Arc<dyn Provider>> {
        self.providers.iter().find(|p| p.kind() == kind)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Provider>> {
        self.providers.iter()
    }
}

//! The request engine. [`Engine::handle`] reads top to bottom as the request chain of SPEC §3:
//! authenticate → freeze the snapshot → compile the route plan → record the start → admission,
//! account choice and upstream call (with failover before the commit) → deliver through the
//! commit barrier → terminal observation and accounting.

pub mod admission;
pub mod affinity_hints;
pub mod attempts;
pub mod auth;
pub mod candidates;
pub mod circuit;
pub mod continuation;
pub mod delivery;
pub mod failover;
pub mod models;
pub mod pool_cache;
pub mod record;
pub mod route_plan;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use gateway_protocol::request::{GATEWAY_KEYS, RequestBody};
use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;

use crate::accounting::PriceTable;
use crate::coordination::{
    CircuitPolicy, ContinuationPins, HeldSlots, ProviderCircuits, RequestSlots, SessionSignal, SignalSource,
};
use crate::domain::{RequestId, Runner, Transport};
use crate::observation::ObservationQueue;
use crate::provider::{Operation, ProviderSet, UpstreamRoute};
use crate::snapshot::SnapshotHolder;

pub use continuation::SocketSession;
pub use delivery::{Delivery, NonStreamReply};

/// Tunables of the data plane.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Most upstream calls one request may make before the commit.
    pub max_attempts: u32,
    /// TTL of the admission and account slots; the replica's heartbeat renews the slots it
    /// holds every third of it, so a dead process's slots are free within one TTL.
    pub lease_ttl: Duration,
    /// Longest wait for an account's `requestIntervalMs` before giving up.
    pub max_interval_wait: Duration,
    pub header_timeout: Duration,
    /// Session-affinity idle expiry.
    pub affinity_idle_ttl: Duration,
    /// After this a still-running request row is recovered as `incomplete`.
    pub request_deadline: Duration,
    /// How long a continuation pin lives (longer than any upstream socket).
    pub pin_ttl: Duration,
    /// This process, recorded on every request row (`None`: not recorded).
    pub runner: Option<Runner>,
    /// When a provider circuit opens and for how long.
    pub circuit: CircuitPolicy,
}

impl EngineSettings {
    /// How long a half-open probe blocks other requests if its outcome never comes back (its
    /// replica died): past the longest wait for an upstream answer (headers, or a WebSocket's
    /// connect and first frame).
    pub fn probe_ttl(&self) -> Duration {
        self.header_timeout + Duration::from_secs(30)
    }
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            lease_ttl: Duration::from_secs(30),
            max_interval_wait: Duration::from_secs(5),
            header_timeout: Duration::from_secs(90),
            affinity_idle_ttl: Duration::from_secs(3600),
            request_deadline: Duration::from_secs(3600),
            pin_ttl: Duration::from_secs(2 * 3600),
            runner: None,
            circuit: CircuitPolicy { failure_threshold: 5, open_for: Duration::from_secs(30) },
        }
    }
}

/// A client request as the API layer hands it over.
pub struct InboundRequest {
    pub operation: Operation,
    pub transport: Transport,
    /// The key the client presented, if any.
    pub api_key: Option<String>,
    /// Header names in lower case.
    pub headers: Vec<(String, Bytes)>,
    pub body: Bytes,
    /// Set for requests arriving on a client WebSocket.
    pub session: Option<SocketSession>,
}

/// What the API layer sends back.
pub enum Reply {
    /// An SSE stream; the first frame is already read.
    Stream { request_id: RequestId, headers: Vec<(String, String)>, body: Box<Delivery> },
    /// A complete JSON answer (non-stream response or error).
    Json { request_id: Option<RequestId>, status: u16, headers: Vec<(String, String)>, body: Bytes },
}

impl Reply {
    pub fn error(error: &ApiError, request_id: Option<RequestId>) -> Self {
        let mut headers = Vec::new();
        if let Some(seconds) = error.retry_after_seconds {
            headers.push(("retry-after".to_owned(), seconds.to_string()));
        }
        Reply::Json { request_id, status: error.status(), headers, body: Bytes::from(error.body()) }
    }
}

pub struct Engine {
    pub snapshots: SnapshotHolder,
    pub providers: ProviderSet,
    pub slots: Arc<dyn RequestSlots>,
    /// The slots this process holds (renewed by its heartbeat, released by tracked tasks).
    pub held: HeldSlots,
    /// Read and fed inside the slot scripts; called directly only when a half-open probe
    /// succeeds.
    pub circuits: Arc<dyn ProviderCircuits>,
    pub pins: Arc<dyn ContinuationPins>,
    pub observations: ObservationQueue,
    pub prices: Arc<PriceTable>,
    pub settings: EngineSettings,
    /// The account each session was last bound to, as this replica saw it.
    pub affinity_hints: affinity_hints::AffinityHints,
    /// Candidate pools per snapshot, scope, provider, model and catalog generation.
    pub pools: pool_cache::PoolCache,
}

impl Engine {
    pub async fn handle(&self, inbound: InboundRequest) -> Reply {
        // 1. Freeze the snapshot: this request reads nothing else until it ends.
        let snapshot = self.snapshots.current();
        let now = OffsetDateTime::now_utc();

        // 2. Authenticate.
        let key = match auth::authenticate(&snapshot, inbound.api_key.as_deref(), now) {
            Ok(key) => key,
            Err(error) => return Reply::error(&error, None),
        };

        // 3. Decode the parts of the body the gateway acts on; the rest stays opaque.
        let view = match RequestBody::parse(&inbound.body) {
            Ok(view) => view,
            Err(error) => return Reply::error(&ApiError::new(ErrorCode::InvalidJson, error.to_string()), None),
        };
        // The gateway and the upstream must read the same value of every key the gateway acts on.
        if let Some(key) = view.duplicate(GATEWAY_KEYS) {
            let message = format!("The request body holds the top-level key '{key}' more than once; send it once.");
            return Reply::error(&ApiError::new(ErrorCode::InvalidRequest, message).with_param(key), None);
        }
        let model = match view.string(&inbound.body, "model") {
            Ok(Some(model)) if !model.is_empty() => model,
            Ok(_) => {
                return Reply::error(
                    &ApiError::new(ErrorCode::InvalidRequest, "Missing required parameter: 'model'.")
                        .with_param("model"),
                    None,
                );
            }
            Err(error) => {
                return Reply::error(
                    &ApiError::new(ErrorCode::InvalidRequest, error.to_string()).with_param("model"),
                    None,
                );
            }
        };
        let stream = match view.boolean(&inbound.body, "stream") {
            Ok(stream) => stream.unwrap_or(false),
            Err(error) => return Reply::error(&ApiError::new(ErrorCode::InvalidRequest, error.to_string()), None),
        };
        let previous = match view.string(&inbound.body, "previous_response_id") {
            Ok(previous) => previous.filter(|p| !p.is_empty()),
            Err(error) => return Reply::error(&ApiError::new(ErrorCode::InvalidRequest, error.to_string()), None),
        };

        // 4. Route plan: model mapping and the providers/accounts that may serve it. A
        //    continuation may run only on the account that owns the previous response.
        let mut plan = match route_plan::RoutePlan::compile(&snapshot, &key, &model, &self.providers, &self.pools) {
            Ok(plan) => plan,
            Err(error) => return Reply::error(&error, None),
        };
        let continuation = match &previous {
            Some(previous) => {
                match continuation::resolve(self, &snapshot, &key, previous, inbound.session.as_ref()).await {
                    Ok(found) => {
                        plan.steps.retain(|(provider, _)| *provider == found.provider);
                        Some(found)
                    }
                    Err(error) => return Reply::error(&error, None),
                }
            }
            None => None,
        };
        let route = match (&continuation, &inbound.session) {
            (Some(found), _) => found.route.clone(),
            (None, Some(session)) => UpstreamRoute::Socket { conversation: session.conversation },
            (None, None) => UpstreamRoute::Http,
        };

        // 5. Record the start before anything can reach upstream (invariant 2).
        let request_id = RequestId::new();
        let mut record = record::RequestRecord::start(
            self.observations.clone(),
            request_id,
            key.record.id,
            &model,
            inbound.operation.name(),
            inbound.transport,
            stream,
            key.scope.routing.clone(),
            self.settings.request_deadline,
            self.settings.runner.clone(),
        );

        // 6. Admission, account choice and the upstream call, failing over before the commit.
        let session = session_signal(&inbound.headers, &inbound.body, &view);
        let call = attempts::CallContext {
            engine: self,
            snapshot: &snapshot,
            key: &key,
            plan: &plan,
            inbound: &inbound,
            view: &view,
            stream,
            session: session.as_ref(),
            route: &route,
            only_account: continuation.as_ref().map(|c| c.owner),
        };
        let accepted = match attempts::run(&call, &mut record).await {
            Ok(accepted) => accepted,
            Err(error) => {
                record.finish(
                    crate::domain::RequestStatus::Failed,
                    record::Outcome {
                        http_status: Some(error.status()),
                        error_code: Some(error.upstream_code.clone().unwrap_or_else(|| error.code.code().to_owned())),
                        ..record::Outcome::default()
                    },
                );
                return Reply::error(&error, Some(request_id));
            }
        };

        // 7. Deliver through the commit barrier; the terminal observation follows the stream.
        let pin = (accepted.reply.transport == Transport::Websocket).then(|| delivery::PinContext {
            pins: self.pins.clone(),
            key: key.clone(),
            provider: accepted.provider,
            ttl: self.settings.pin_ttl,
        });
        let delivery = Delivery::new(accepted, record, plan.upstream_model.clone(), self.prices.clone(), pin);
        // A WebSocket client always receives events, whatever `stream` says.
        if stream || inbound.session.is_some() {
            match delivery.prefetch().await {
                Ok((headers, delivery)) => Reply::Stream { request_id, headers, body: Box::new(delivery) },
                Err(error) => Reply::error(&error, Some(request_id)),
            }
        } else {
            match delivery.collect().await {
                NonStreamReply::Ok { headers, body } => {
                    Reply::Json { request_id: Some(request_id), status: 200, headers, body }
                }
                NonStreamReply::Err(error) => Reply::error(&error, Some(request_id)),
            }
        }
    }
}

/// The explicit session signal, if the client sent one: the `session_id` header, else the
/// top-level `prompt_cache_key`, else `conversation_id`.
fn session_signal(headers: &[(String, Bytes)], body: &[u8], view: &RequestBody) -> Option<SessionSignal> {
    let header = headers.iter().find(|(name, _)| name == "session_id" || name == "session-id");
    if let Some((_, value)) = header
        && let Ok(signal) = SessionSignal::parse(SignalSource::SessionHeader, value)
    {
        return Some(signal);
    }
    for (field, source) in
        [("prompt_cache_key", SignalSource::PromptCacheKey), ("conversation_id", SignalSource::ConversationId)]
    {
        if let Ok(Some(value)) =
            view.string(body, if field == "prompt_cache_key" { "prompt_cache_key" } else { "conversation_id" })
            && let Ok(signal) = SessionSignal::parse(source, value.as_bytes())
        {
            return Some(signal);
        }
    }
    None
}

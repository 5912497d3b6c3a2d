//! The request engine. [`Engine::handle`] reads top to bottom as the request chain of SPEC §3,
//! one named phase each: freeze the snapshot → authenticate → decode → plan (route plan,
//! continuation, route: builds the one [`RequestContext`]) → record the start → attempts
//! (`attempts.rs`: acquire → send → decide on failure, before the commit) → deliver through
//! the commit barrier (`delivery.rs`) → finish (terminal observation, accounting, release).

pub mod admission;
pub mod affinity_hints;
pub mod attempts;
pub mod auth;
pub mod candidates;
pub mod circuit;
pub mod config;
pub mod context;
pub mod continuation;
pub mod decode;
pub mod delivery;
pub mod failover;
pub mod fault_memory;
pub mod models;
pub mod phase;
pub mod pool_cache;
pub mod pool_usage;
pub mod record;
pub mod route_plan;
pub mod tier_policy;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use gateway_protocol::ApiError;
use time::OffsetDateTime;

use crate::accounting::PriceTable;
use crate::coordination::{CircuitPolicy, ContinuationPins, HeldSlots, ProviderCircuits, RequestSlots};
use crate::domain::{ProviderKind, RequestId, RequestOutcome, RequestStatus, Runner, ServiceTierPolicy, Transport};
use crate::observation::ObservationQueue;
use crate::provider::{Operation, ProviderSet, UpstreamRoute};
use crate::snapshot::{KeyEntry, RuntimeSnapshot, SnapshotHolder};

pub use config::EngineConfig;
pub use context::RequestContext;
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
    /// Longest wait for an upstream's response head (`engine.header_timeout_seconds`).
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
    /// Recent fault streaks per account and avoided egress paths, as this replica saw them.
    pub fault_memory: fault_memory::FaultMemory,
    /// Candidate pools per snapshot, scope, provider, model and catalog generation.
    pub pools: pool_cache::PoolCache,
    /// Request, attempt and admission metrics (disabled: records nothing).
    pub telemetry: crate::telemetry::Telemetry,
    /// Where banned accounts and empty pools are raised (disabled: dropped).
    pub alerts: crate::alerts::AlertSink,
}

impl Engine {
    /// The request chain of SPEC §3, one named phase per step.
    pub async fn handle(&self, inbound: InboundRequest) -> Reply {
        let span = request_span(&inbound);
        tracing::Instrument::instrument(self.run(inbound), span).await
    }

    /// The phases, in order.
    async fn run(&self, mut inbound: InboundRequest) -> Reply {
        let arrived = std::time::Instant::now();
        let (route, transport) = (inbound.operation.name(), inbound.transport);
        // Freeze the snapshot: this request reads nothing else until it ends.
        let snapshot = self.snapshots.current();
        let now = OffsetDateTime::now_utc();
        let authenticated = phase::run(crate::phase!("authenticate"), || {
            auth::authenticate(&snapshot, inbound.api_key.as_deref(), now)
        });
        let key = match authenticated {
            Ok(key) => key,
            Err(error) => return self.refuse_early(route, transport, &error),
        };
        let decoded = phase::run(crate::phase!("decode"), || {
            let mut decoded = decode::decode(&inbound.body)?;
            tier_policy::enforce(key.record.service_tier_policy, &mut inbound.body, &mut decoded.view)?;
            Ok::<_, ApiError>(decoded)
        });
        let decoded = match decoded {
            Ok(decoded) => decoded,
            Err(error) => return self.refuse_early(route, transport, &error),
        };
        let span = crate::phase!("plan", model = tracing::field::Empty);
        let planned = tracing::Instrument::instrument(self.plan(inbound, snapshot, key, decoded), span.clone()).await;
        let ctx = match planned {
            Ok(ctx) => {
                span.record("model", ctx.plan.upstream_model.as_str());
                ctx
            }
            Err(error) => {
                span.record("outcome", phase::REFUSED);
                return self.refuse_early(route, transport, &error);
            }
        };
        drop(span);
        let mut record = crate::phase!("record").in_scope(|| self.record_start(&ctx, arrived));
        tracing::Span::current().record("request_id", tracing::field::display(record.id));
        match attempts::run(self, &ctx, &mut record).await {
            Ok(accepted) => self.deliver(&ctx, accepted, record).await,
            Err(error) => Self::refuse(record, &error),
        }
    }

    /// Refused before a record exists (key, body, route plan): counted, then the client's error.
    fn refuse_early(&self, route: &'static str, transport: Transport, error: &ApiError) -> Reply {
        self.telemetry.request_refused(route, transport, error.status());
        Reply::error(error, None)
    }

    /// Plan: the route plan (model mapping, the providers and pools that may serve it within
    /// the key's scope), the continuation's owner, the upstream route and the session signal.
    async fn plan(
        &self,
        inbound: InboundRequest,
        snapshot: Arc<RuntimeSnapshot>,
        key: Arc<KeyEntry>,
        decoded: decode::Decoded,
    ) -> Result<RequestContext, ApiError> {
        let mut plan = route_plan::RoutePlan::compile(&snapshot, &key, &decoded.model, &self.providers, &self.pools)?;
        let continuation = match &decoded.previous {
            Some(previous) => {
                let found = continuation::resolve(self, &snapshot, &key, previous, inbound.session.as_ref()).await?;
                plan.steps.retain(|(provider, _)| found.providers.contains(provider));
                if plan.steps.is_empty() {
                    // No provider that may continue it serves this model.
                    return Err(failover::previous_response_not_found());
                }
                Some(found)
            }
            None => None,
        };
        let route = match (&continuation, &inbound.session) {
            (Some(found), _) => found.route.clone(),
            (None, Some(session)) => UpstreamRoute::Socket { conversation: session.conversation },
            (None, None) => UpstreamRoute::Http,
        };
        let session = decode::session_signal(&inbound.headers, &inbound.body, &decoded.view);
        Ok(RequestContext {
            inbound,
            snapshot,
            key,
            view: decoded.view,
            model: decoded.model,
            stream: decoded.stream,
            plan,
            route,
            session,
            only_account: continuation.and_then(|c| c.owner),
        })
    }

    /// Record the start before anything can reach upstream (invariant 2).
    fn record_start(&self, ctx: &RequestContext, arrived: std::time::Instant) -> record::RequestRecord {
        let metrics = record::RecordTelemetry {
            telemetry: self.telemetry.clone(),
            model: self.telemetry.model_index(&ctx.model),
            arrived,
        };
        record::RequestRecord::start(
            self.observations.clone(),
            RequestId::new(),
            ctx.key.record.id,
            &ctx.model,
            ctx.inbound.operation.name(),
            ctx.inbound.transport,
            ctx.stream,
            ctx.key.scope.routing.clone(),
            self.settings.request_deadline,
            self.settings.runner.clone(),
            metrics,
        )
    }

    /// No upstream accepted the request: its one terminal observation, and the client's error.
    fn refuse(mut record: record::RequestRecord, error: &ApiError) -> Reply {
        let finish = crate::phase!("finish");
        finish.record("outcome", RequestStatus::Failed.as_str());
        let _entered = finish.enter();
        record.finish(
            RequestStatus::Failed,
            RequestOutcome::error(
                Some(error.status()),
                error.upstream_code.clone().unwrap_or_else(|| error.code.code().to_owned()),
            ),
        );
        Reply::error(error, Some(record.id))
    }

    /// Deliver through the commit barrier; the terminal observation follows the stream.
    async fn deliver(
        &self,
        ctx: &RequestContext,
        accepted: attempts::Accepted,
        record: record::RequestRecord,
    ) -> Reply {
        let request_id = record.id;
        let stored = accepted.reply.transport == Transport::Http
            && self
                .providers
                .get(accepted.provider)
                .is_some_and(|p| p.stores_http_response(&ctx.inbound.body, &ctx.view));
        let pin = (accepted.reply.transport == Transport::Websocket || stored).then(|| delivery::PinContext {
            pins: self.pins.clone(),
            key: ctx.key.clone(),
            provider: accepted.provider,
            ttl: self.settings.pin_ttl,
        });
        // xAI drops `service_tier` (PROTOCOL H.3): only an OpenAI call is served at the forced tier.
        let forced = (ctx.key.record.service_tier_policy == ServiceTierPolicy::ForcePriority
            && accepted.provider == ProviderKind::Openai)
            .then_some(tier_policy::PRIORITY);
        let delivery = Delivery::new(accepted, record, ctx.plan.upstream_model.clone(), self.prices.clone(), pin)
            .forcing_tier(forced);
        if ctx.streams() {
            return match delivery.prefetch().await {
                Ok((headers, delivery)) => Reply::Stream { request_id, headers, body: Box::new(delivery) },
                Err(error) => Reply::error(&error, Some(request_id)),
            };
        }
        match delivery.collect().await {
            NonStreamReply::Ok { headers, body } => {
                Reply::Json { request_id: Some(request_id), status: 200, headers, body }
            }
            NonStreamReply::Err(error) => Reply::error(&error, Some(request_id)),
        }
    }
}

/// The span every log line of the request carries: its id (once recorded) and its trace id;
/// the phase spans are its children. With a trace exporter it is a child of the HTTP server
/// span (which adopted the client's `traceparent`), and `trace_id` is the exported trace's,
/// assigned or the client's; a request outside any server span (a WebSocket turn) adopts the
/// `traceparent` it carries. Without an exporter `trace_id` is the client's, or empty.
fn request_span(inbound: &InboundRequest) -> tracing::Span {
    let traceparent = header(&inbound.headers, "traceparent");
    let client_trace = traceparent.and_then(crate::trace_context::trace_id);
    let span = tracing::info_span!(
        "request",
        request_id = tracing::field::Empty,
        trace_id = tracing::field::Empty,
        route = inbound.operation.name(),
    );
    if let Some(traceparent) = traceparent.filter(|_| client_trace.is_some())
        && tracing::Span::current().is_none()
    {
        crate::trace_context::adopt_parent(&span, traceparent, header(&inbound.headers, "tracestate"));
    }
    match crate::trace_context::trace_id_of(&span) {
        Some(exported) => span.record("trace_id", exported.as_str()),
        None => span.record("trace_id", client_trace.unwrap_or_default()),
    };
    span
}

/// The first value of the header `name` as text.
fn header<'a>(headers: &'a [(String, Bytes)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n == name).and_then(|(_, value)| std::str::from_utf8(value).ok())
}

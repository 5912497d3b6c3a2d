//! Engine metrics through the `metrics` facade (no HTTP, no exporter here: the composition root
//! hands in the recorder, `gateway-api` renders it).
//!
//! Hot-path rule: every handle is registered once per bounded label set in a lock-free
//! [`SeriesTable`](series::SeriesTable); recording a request looks handles up by a `Copy` key of
//! static strings and a model index and allocates nothing beyond the histogram samples. Labels
//! are bounded: route, transport, provider, status class and outcome are closed sets, the model
//! label is interned up to `max_models` names (then `other`), attempt outcomes and failover
//! reasons are the providers' static failure codes. No per-request or per-key label exists.
//!
//! A disabled [`Telemetry`] records nothing and costs one branch per call.

pub mod series;

use std::sync::Arc;
use std::time::Duration;

use metrics::{Counter, Histogram, Key, Label, Level, Metadata, Recorder, Unit};

use self::series::{NAME_NONE, NameTable, SeriesTable};
use crate::domain::{ProviderKind, RequestStatus, Transport};

/// The metric names, one place (the scrape test and `deploy/grafana/` use the same spellings).
pub mod names {
    pub const REQUESTS: &str = "switchboard_requests_total";
    pub const REQUEST_DURATION: &str = "switchboard_request_duration_seconds";
    pub const TIME_TO_FIRST_BYTE: &str = "switchboard_time_to_first_byte_seconds";
    pub const GATEWAY_OVERHEAD: &str = "switchboard_gateway_overhead_seconds";
    pub const UPSTREAM_ATTEMPTS: &str = "switchboard_upstream_attempts_total";
    pub const FAILOVERS: &str = "switchboard_failovers_total";
    pub const ADMISSION_REJECTIONS: &str = "switchboard_admission_rejections_total";
    pub const CREDENTIAL_REFRESHES: &str = "switchboard_credential_refreshes_total";
    pub const COORDINATION_ERRORS: &str = "switchboard_coordination_errors_total";
}

/// A provider's upstream WebSocket pool, read when `/metrics` is scraped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SocketPoolStats {
    /// Sockets in the pool now.
    pub open: u64,
    /// Sockets opened since the start.
    pub opened: u64,
    /// Turns that found a live socket to reuse.
    pub reused: u64,
}

/// Implemented by a provider that pools upstream WebSockets.
pub trait SocketPoolSource: Send + Sync {
    fn socket_pool(&self) -> SocketPoolStats;
}

/// What the composition root configures.
#[derive(Debug, Clone, Copy)]
pub struct TelemetrySettings {
    /// Whether requests carry a `model` label (bounded by `max_models`).
    pub model_label: bool,
    pub max_models: u16,
}

impl Default for TelemetrySettings {
    fn default() -> Self {
        Self { model_label: true, max_models: 256 }
    }
}

/// Cheap to clone; every clone records into the same series.
#[derive(Clone)]
pub struct Telemetry {
    inner: Option<Arc<Inner>>,
}

type RequestKey = (&'static str, &'static str, u16, &'static str, &'static str, &'static str);
type PhaseKey = (&'static str, &'static str);
type CodeKey = (&'static str, &'static str);

struct Inner {
    recorder: Arc<dyn Recorder + Send + Sync>,
    models: NameTable,
    requests: SeriesTable<RequestKey, Counter>,
    duration: SeriesTable<PhaseKey, Histogram>,
    first_byte: SeriesTable<PhaseKey, Histogram>,
    overhead: SeriesTable<PhaseKey, Histogram>,
    attempts: SeriesTable<CodeKey, Counter>,
    failovers: SeriesTable<CodeKey, Counter>,
    admission: SeriesTable<&'static str, Counter>,
    refreshes: SeriesTable<CodeKey, Counter>,
    coordination: SeriesTable<&'static str, Counter>,
}

static METADATA: Metadata<'static> = Metadata::new("switchboard", Level::INFO, Some(module_path!()));

/// How one finished request is labelled and timed.
#[derive(Debug, Clone, Copy)]
pub struct FinishedRequest {
    pub route: &'static str,
    pub transport: Transport,
    /// From [`Telemetry::model_index`] (`NAME_NONE` when the request never got a model).
    pub model: u16,
    pub provider: Option<ProviderKind>,
    pub status: RequestStatus,
    pub http_status: Option<u16>,
    pub total: Duration,
    /// Until the first byte promised to the client (the downstream commit), when reached.
    pub first_byte: Option<Duration>,
    /// The gateway's own time before the first upstream send, when one was made.
    pub overhead: Option<Duration>,
}

impl Telemetry {
    /// Records nothing.
    pub fn disabled() -> Self {
        Self { inner: None }
    }

    /// Records into `recorder` (the exporter's, or any `metrics` recorder in tests).
    pub fn new(recorder: Arc<dyn Recorder + Send + Sync>, settings: TelemetrySettings) -> Self {
        describe(recorder.as_ref());
        // Overflow handles: the unlabelled series of a family counts label sets past its table.
        let counter = |name: &'static str| register_counter(recorder.as_ref(), name, vec![]);
        let histogram = |name: &'static str| register_histogram(recorder.as_ref(), name, vec![]);
        let inner = Inner {
            models: NameTable::new(settings.max_models, settings.model_label),
            requests: SeriesTable::new(4096, counter(names::REQUESTS)),
            duration: SeriesTable::new(64, histogram(names::REQUEST_DURATION)),
            first_byte: SeriesTable::new(64, histogram(names::TIME_TO_FIRST_BYTE)),
            overhead: SeriesTable::new(64, histogram(names::GATEWAY_OVERHEAD)),
            attempts: SeriesTable::new(256, counter(names::UPSTREAM_ATTEMPTS)),
            failovers: SeriesTable::new(256, counter(names::FAILOVERS)),
            admission: SeriesTable::new(16, counter(names::ADMISSION_REJECTIONS)),
            refreshes: SeriesTable::new(64, counter(names::CREDENTIAL_REFRESHES)),
            coordination: SeriesTable::new(16, counter(names::COORDINATION_ERRORS)),
            recorder: recorder.clone(),
        };
        Self { inner: Some(Arc::new(inner)) }
    }

    pub fn is_enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// The model label's index (interned once per model name; no allocation afterwards).
    pub fn model_index(&self, model: &str) -> u16 {
        self.inner.as_ref().map_or(NAME_NONE, |inner| inner.models.index(model))
    }

    /// A request refused before it had a model (key, body or route plan): counted, not timed
    /// (its time is the decoding's, not a request's).
    pub fn request_refused(&self, route: &'static str, transport: Transport, http_status: u16) {
        let Some(inner) = &self.inner else { return };
        let status = RequestStatus::Failed;
        inner.count_request(route, transport, NAME_NONE, "none", status_class(Some(http_status)), status);
    }

    /// The one record of a finished request: its counter and its latency histograms.
    pub fn request_finished(&self, request: &FinishedRequest) {
        let Some(inner) = &self.inner else { return };
        let provider = provider_label(request.provider);
        let class = status_class(request.http_status);
        inner.count_request(request.route, request.transport, request.model, provider, class, request.status);
        let phase = (request.route, provider);
        let histogram = |name: &'static str| move |k: PhaseKey| inner.phase_histogram(name, k);
        inner.duration.get(phase, histogram(names::REQUEST_DURATION)).record(request.total.as_secs_f64());
        if let Some(first_byte) = request.first_byte {
            inner.first_byte.get(phase, histogram(names::TIME_TO_FIRST_BYTE)).record(first_byte.as_secs_f64());
        }
        if let Some(overhead) = request.overhead {
            inner.overhead.get(phase, histogram(names::GATEWAY_OVERHEAD)).record(overhead.as_secs_f64());
        }
    }

    /// One upstream attempt ended: `outcome` is `ok` or the provider's stable failure code.
    pub fn attempt_finished(&self, provider: ProviderKind, outcome: &'static str) {
        self.code_counter(|i| &i.attempts, names::UPSTREAM_ATTEMPTS, "outcome", provider.as_str(), outcome);
    }

    /// The engine moved on to another account (or provider) after a failure coded `reason`.
    pub fn failover(&self, provider: ProviderKind, reason: &'static str) {
        self.code_counter(|i| &i.failovers, names::FAILOVERS, "reason", provider.as_str(), reason);
    }

    /// A credential refresh ended: `outcome` is `renewed`, `transient` or `terminal`.
    pub fn refresh_finished(&self, provider: ProviderKind, outcome: &'static str) {
        self.code_counter(|i| &i.refreshes, names::CREDENTIAL_REFRESHES, "outcome", provider.as_str(), outcome);
    }

    /// Client admission refused a request (`concurrency`, `requests_per_minute`, `budget`).
    pub fn admission_rejected(&self, reason: &'static str) {
        let Some(inner) = &self.inner else { return };
        let register = |reason: &'static str| {
            register_counter(
                &*inner.recorder,
                names::ADMISSION_REJECTIONS,
                vec![Label::from_static_parts("reason", reason)],
            )
        };
        inner.admission.get(reason, register).increment(1);
    }

    /// The coordination store (Redis in production) failed a request's call (`kind` is the
    /// stable error kind).
    pub fn coordination_error(&self, kind: &'static str) {
        let Some(inner) = &self.inner else { return };
        let register = |kind: &'static str| {
            register_counter(&*inner.recorder, names::COORDINATION_ERRORS, vec![Label::from_static_parts("kind", kind)])
        };
        inner.coordination.get(kind, register).increment(1);
    }

    fn code_counter(
        &self,
        table: impl Fn(&Inner) -> &SeriesTable<CodeKey, Counter>,
        name: &'static str,
        code_label: &'static str,
        provider: &'static str,
        code: &'static str,
    ) {
        let Some(inner) = &self.inner else { return };
        let register = |(provider, code): CodeKey| {
            let labels =
                vec![Label::from_static_parts("provider", provider), Label::from_static_parts(code_label, code)];
            register_counter(&*inner.recorder, name, labels)
        };
        table(inner).get((provider, code), register).increment(1);
    }
}

impl Inner {
    fn count_request(
        &self,
        route: &'static str,
        transport: Transport,
        model: u16,
        provider: &'static str,
        class: &'static str,
        status: RequestStatus,
    ) {
        let key = (route, transport.as_str(), model, provider, class, status.as_str());
        self.requests.get(key, |k| self.request_counter(k)).increment(1);
    }

    fn request_counter(&self, (route, transport, model, provider, class, outcome): RequestKey) -> Counter {
        let labels = vec![
            Label::from_static_parts("route", route),
            Label::from_static_parts("transport", transport),
            Label::new("model", self.models.name(model).to_owned()),
            Label::from_static_parts("provider", provider),
            Label::from_static_parts("status_class", class),
            Label::from_static_parts("outcome", outcome),
        ];
        register_counter(&*self.recorder, names::REQUESTS, labels)
    }

    fn phase_histogram(&self, name: &'static str, (route, provider): PhaseKey) -> Histogram {
        let labels = vec![Label::from_static_parts("route", route), Label::from_static_parts("provider", provider)];
        self.recorder.register_histogram(&Key::from_parts(name, labels), &METADATA)
    }
}

fn register_counter(recorder: &dyn Recorder, name: &'static str, labels: Vec<Label>) -> Counter {
    recorder.register_counter(&Key::from_parts(name, labels), &METADATA)
}

fn register_histogram(recorder: &dyn Recorder, name: &'static str, labels: Vec<Label>) -> Histogram {
    recorder.register_histogram(&Key::from_parts(name, labels), &METADATA)
}

pub fn provider_label(provider: Option<ProviderKind>) -> &'static str {
    provider.map_or("none", ProviderKind::as_str)
}

/// The HTTP status class the client received (`none`: it went away before a status).
pub fn status_class(http_status: Option<u16>) -> &'static str {
    match http_status {
        Some(100..=199) => "1xx",
        Some(200..=299) => "2xx",
        Some(300..=399) => "3xx",
        Some(400..=499) => "4xx",
        Some(500..=599) => "5xx",
        Some(_) => "other",
        None => "none",
    }
}

fn describe(recorder: &dyn Recorder) {
    let counters = [
        (names::REQUESTS, "Client requests by route, transport, model, provider, HTTP status class and outcome."),
        (names::UPSTREAM_ATTEMPTS, "Upstream calls by provider and outcome (ok or the stable failure code)."),
        (names::FAILOVERS, "Moves to another account or provider after a failed attempt, by failure code."),
        (names::ADMISSION_REJECTIONS, "Requests refused by client-key admission (concurrency, rate, budget)."),
        (names::CREDENTIAL_REFRESHES, "Credential refreshes by provider and outcome."),
        (names::COORDINATION_ERRORS, "Coordination-store (Redis) failures seen by requests, by kind."),
    ];
    for (name, help) in counters {
        recorder.describe_counter(name.into(), None, help.into());
    }
    let histograms = [
        (names::REQUEST_DURATION, "Total request time, arrival to the last byte."),
        (names::TIME_TO_FIRST_BYTE, "Arrival to the first byte promised to the client (the downstream commit)."),
        (names::GATEWAY_OVERHEAD, "The gateway's own time from arrival to the first upstream send."),
    ];
    for (name, help) in histograms {
        recorder.describe_histogram(name.into(), Some(Unit::Seconds), help.into());
    }
}

//! W3C Trace Context: a client's `traceparent` is accepted when well formed
//! (`00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`, not all zeros), recorded with the
//! request and forwarded upstream unchanged; a malformed one is ignored (never an error).

/// The trace id of a well-formed `traceparent`.
pub fn trace_id(traceparent: &str) -> Option<&str> {
    let mut parts = traceparent.trim().split('-');
    let (version, trace, parent, flags) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex =
        |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let valid = hex(version, 2)
        && version != "ff"
        && hex(trace, 32)
        && trace.bytes().any(|b| b != b'0')
        && hex(parent, 16)
        && parent.bytes().any(|b| b != b'0')
        && hex(flags, 2)
        && (version != "00" || parts.next().is_none());
    valid.then_some(trace)
}

/// How spans join a distributed trace, installed once per process by the trace exporter
/// (`gateway_host::otlp`); without it a client's `traceparent` is forwarded upstream unchanged
/// and no span is linked to it (this crate does not depend on OpenTelemetry).
#[derive(Clone, Copy)]
pub struct Propagation {
    /// Makes the client's span (`traceparent`, `tracestate`) the parent of `span`.
    pub adopt: fn(span: &tracing::Span, traceparent: &str, tracestate: Option<&str>),
    /// The `traceparent` that names `span`, for the upstream call.
    pub inject: fn(span: &tracing::Span) -> Option<String>,
    /// The `traceparent` of the innermost exported span the caller is in (the HTTP server span
    /// inside a request's handler), whatever unexported spans sit between.
    pub current: fn() -> Option<String>,
}

static PROPAGATION: std::sync::OnceLock<Propagation> = std::sync::OnceLock::new();

/// Installs the process's propagation; the first installation stays.
pub fn install(propagation: Propagation) {
    let _ = PROPAGATION.set(propagation);
}

/// Whether a trace exporter installed its propagation.
pub fn installed() -> bool {
    PROPAGATION.get().is_some()
}

/// Makes a client's well-formed `traceparent` the parent of `span` (nothing without an
/// exporter).
pub fn adopt_parent(span: &tracing::Span, traceparent: &str, tracestate: Option<&str>) {
    if let Some(propagation) = PROPAGATION.get() {
        (propagation.adopt)(span, traceparent, tracestate);
    }
}

/// The `traceparent` naming `span` (`None` without an exporter, or when `span` is disabled).
pub fn traceparent_of(span: &tracing::Span) -> Option<String> {
    let propagation = PROPAGATION.get()?;
    if span.is_disabled() {
        return None;
    }
    (propagation.inject)(span)
}

/// The trace id of `span` as the exporter assigned it: the client's when its `traceparent` was
/// adopted, a new one otherwise (`None` without an exporter, or when `span` is disabled).
pub fn trace_id_of(span: &tracing::Span) -> Option<String> {
    traceparent_of(span).as_deref().and_then(trace_id).map(str::to_owned)
}

/// The `traceparent` of the innermost exported span the caller is in (`None` without an
/// exporter, or outside any exported span).
pub fn current_traceparent() -> Option<String> {
    (PROPAGATION.get()?.current)()
}

/// The trace id of the innermost exported span the caller is in (see [`current_traceparent`]).
pub fn current_trace_id() -> Option<String> {
    current_traceparent().as_deref().and_then(trace_id).map(str::to_owned)
}

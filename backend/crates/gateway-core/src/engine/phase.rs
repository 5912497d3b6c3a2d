//! The engine's phase spans (issue 23): one span per phase of the request chain, a child of the
//! `request` span, under the target [`TARGET`]. The process logger turns that target off, so
//! with no trace exporter each phase span costs one cached-interest branch; the OTLP layer
//! (`gateway_host::otlp`) turns it on.
//!
//! Attributes are bounded: the route (on the request span), the upstream model, the provider,
//! the attempt number, the account id (already in the attempt log lines), and an `outcome`
//! class: a fixed code, never a message.

/// The target of every phase span.
pub const TARGET: &str = "switchboard::phase";

/// The `outcome` of a phase that refused the request.
pub const REFUSED: &str = "refused";

/// A phase span, a child of the current (`request`) span, with an `outcome` field to record:
/// `phase!("decode")`, `phase!("send", attempt = 1)`.
#[macro_export]
#[doc(hidden)]
macro_rules! phase {
    ($name:literal $(, $($fields:tt)*)?) => {
        ::tracing::info_span!(
            target: $crate::engine::phase::TARGET,
            $name,
            outcome = ::tracing::field::Empty
            $(, $($fields)*)?
        )
    };
}

/// Runs the synchronous phase `work` inside `span`; an `Err` records the `refused` outcome.
pub fn run<T, E>(span: tracing::Span, work: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let _entered = span.enter();
    let result = work();
    if result.is_err() {
        span.record("outcome", REFUSED);
    }
    result
}

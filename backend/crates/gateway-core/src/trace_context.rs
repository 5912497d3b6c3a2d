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

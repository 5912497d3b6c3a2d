//! Client admission: per client key concurrency and requests per minute.
//!
//! Admission is decided inside [`super::RequestSlots::acquire`] together with the account
//! choice, so a request that gets no account consumes neither a concurrency slot nor a
//! requests-per-minute unit.

use std::time::Duration;

use crate::domain::{ClientKeyId, RequestId};

/// The limits of one client key, from the frozen snapshot. `None` means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmissionLimits {
    pub client_key: ClientKeyId,
    pub max_concurrency: Option<u32>,
    pub requests_per_minute: Option<u32>,
}

/// A held client concurrency slot, identified by the request. Exists only when the key has a
/// concurrency limit. Expires by its TTL if never released (dead process).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AdmissionLease {
    pub client_key: ClientKeyId,
    pub request: RequestId,
}

/// Why admission refused the request. Nothing was recorded for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdmissionDenial {
    /// `in_flight` requests of this key already hold slots (`in_flight >= limit`).
    Concurrency { limit: u32, in_flight: u32 },
    /// The key made `limit` requests in the last 60 s; the oldest leaves the window after
    /// `retry_after`.
    RequestsPerMinute { limit: u32, retry_after: Duration },
}

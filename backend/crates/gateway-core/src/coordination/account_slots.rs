//! Account slots: the in-flight count of each account under its cap, the fencing token of each
//! slot, the request interval and the per-account signals (429 cooldown, model exclusion) that
//! the acquire step reads.
//!
//! Account state is global per real account (not per client key): all replicas and tenants
//! share its cap, interval and cooldown.

use std::fmt;
use std::time::Duration;

use super::UnixMillis;
use crate::domain::AccountId;
use crate::fault::Fault;
use crate::selection::QuotaStanding;

/// One account the engine may use for this attempt, in the engine's order of preference, with
/// its scheduling facts from the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountCandidate {
    pub account: AccountId,
    /// Resolved concurrency cap (the account's own or the runtime default); at least 1.
    pub max_in_flight: u32,
    /// `requestIntervalMs`: the minimum time between two request starts on this account.
    pub request_interval: Duration,
    /// The account's weight, 1–100.
    pub weight: u32,
    /// Its quota standing from the snapshot, for the strategies that sort on it.
    pub standing: QuotaStanding,
}

/// A monotonic token per account (or per lease name). A write carrying a token that no longer
/// names a live slot/lease is rejected, so a holder that lost its lease (paused, partitioned,
/// expired) cannot act.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FenceToken(pub u64);

impl fmt::Display for FenceToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A held account slot. Renew it during long streams; it expires by TTL otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AccountLease {
    pub account: AccountId,
    pub token: FenceToken,
}

/// Why a candidate could not be chosen, first failing check in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ineligible {
    /// A 429 cooldown runs until `until`.
    CoolingDown { until: UnixMillis },
    /// The account answered model-not-supported for the requested model; excluded until `until`.
    ModelExcluded { until: UnixMillis },
    /// All `cap` slots are held.
    AtCap { in_flight: u32, cap: u32 },
    /// The previous start was too recent; the account is eligible again after `wait`.
    IntervalWait { wait: Duration },
}

/// What an attempt learned about its account, applied by release (or by a failover acquire) in
/// the same script that frees the slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountFeedback {
    /// Skip the account for `duration` because of `fault` (an existing later cooldown is kept,
    /// with its fault).
    Cooldown { duration: Duration, fault: Fault },
    /// Model-not-supported: skip the account for this model for `ttl`.
    ExcludeModel { model: String, ttl: Duration },
}

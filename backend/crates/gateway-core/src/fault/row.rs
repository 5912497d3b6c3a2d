//! The columns of a fault row.

use std::time::Duration;

use gateway_protocol::ErrorCode;

use super::Fault;

/// Who a fault is blamed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blame {
    /// The request itself: no account is touched, nothing is retried.
    Request,
    /// The account (its credential, plan, quota or standing).
    Account,
    /// The path out of this gateway: the egress address, its proxy, its cookies.
    Egress,
    /// The upstream provider's service (the same for every account).
    Provider,
    /// Nobody: the outcome is unknown, or the gateway itself ran short.
    Nobody,
}

impl Blame {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Request => "request",
            Self::Account => "account",
            Self::Egress => "egress",
            Self::Provider => "provider",
            Self::Nobody => "nobody",
        }
    }
}

/// How long the faulted account is skipped (in coordination storage only; nothing stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CooldownRule {
    None,
    /// A fixed time.
    Fixed(Duration),
    /// Until the upstream's own deadline (a usage limit's reset, or `Retry-After`), at most
    /// `max`; `fallback` without one (`None`: no cooldown without a deadline).
    UpstreamDeadline {
        fallback: Option<Duration>,
        max: Duration,
    },
    /// `base` doubled for every consecutive fault of this row on the account, at most `max`;
    /// a success of the account starts it over. An upstream `Retry-After` longer than the
    /// step is taken instead (at most `max`).
    Growing {
        base: Duration,
        max: Duration,
    },
    /// The account is skipped for the requested model only.
    ExcludeModel(Duration),
    /// Not an account cooldown: the credential refresh backs off (5, 15, 45, 135, 300 s, then
    /// every 10 min) and keeps the credential.
    RefreshBackoff,
    /// Not a cooldown: the credential's stored state becomes terminal (re-authorisation needed).
    Terminal,
}

/// What happens to the request after the fault (before the downstream commit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Renew the credential once and try the same account again.
    RefreshAndRetry,
    /// Try another account of the provider (or the next provider while nothing was sent).
    AnotherAccount,
    /// Try another account, preferring one behind another egress path.
    AnotherEgressPath,
    /// Stop: the client gets the row's answer.
    Stop,
    /// The fault happens after the commit: nothing is retried; the stream ends with an error.
    AfterCommit,
    /// A fault of the token endpoint: no request waits on it (a data-plane 401 that needed the
    /// refresh moves on as [`Fault::CredentialRefused`]).
    NoRequest,
}

/// What the client gets when the fault ends its request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAnswer {
    /// The upstream's status and its scrubbed message (the request's own fault).
    UpstreamRefusal,
    /// This error (its status is the code's).
    Error(ErrorCode),
    /// The pool's refusal once no other account could take the request: 503
    /// `no_available_account`, `Retry-After` = the earliest moment an account of the pool is
    /// expected back.
    PoolRefusal,
    /// An `error` event ends the committed stream (`stream_interrupted`); the row is
    /// `incomplete`.
    StreamError,
    /// No client waits on this fault.
    Nobody,
}

/// Where a fault surfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// An inference call (HTTP or WebSocket) before the downstream commit.
    DataPlane,
    /// An inference stream after the commit.
    Stream,
    /// The OAuth token endpoint (credential refresh).
    TokenEndpoint,
}

/// One row of the fault table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultRow {
    pub fault: Fault,
    pub surface: Surface,
    /// As the upstream presents it (for the documentation table).
    pub presented_as: &'static str,
    pub blame: Blame,
    pub cooldown: CooldownRule,
    pub next: Next,
    pub client: ClientAnswer,
    /// Whether the provider circuit counts it as a failure of the upstream.
    pub circuit_failure: bool,
    /// The ops event kind raised for it (besides the attempt record and the
    /// `switchboard_upstream_attempts_total{outcome}` metric every fault gets).
    pub ops_event: Option<&'static str>,
}

impl FaultRow {
    /// The stable code.
    pub const fn code(&self) -> &'static str {
        self.fault.as_str()
    }
}

//! The `model_requests` projection: one row per client request (invariant 1), written from
//! observations (a start, then progress/terminal updates). One model per direction: the start
//! ([`RequestStart`]), an update ([`RequestUpdate`]) and the row read back
//! ([`ModelRequestRecord`]); the update and the read model share the typed attempts and
//! [`RequestOutcome`]. Attempts live in the row's JSON, whose shape is the store's.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::closed_set;
use crate::domain::attempt::Attempt;
use crate::domain::ids::{AccountId, ClientKeyId, GroupId, RequestId};
use crate::domain::provider::ProviderKind;
use crate::domain::replica::Runner;
use crate::domain::request_outcome::RequestOutcome;
use crate::domain::request_usage::LatencySplits;
use crate::domain::send_state::SendState;

closed_set!(
    RequestStatus as "request status" {
        Running = "running",
        Completed = "completed",
        Failed = "failed",
        /// Cut short (stale or replica-lost recovery, upstream failure after the commit, upstream
        /// incomplete).
        Incomplete = "incomplete",
        Cancelled = "cancelled",
    }
);

impl RequestStatus {
    pub fn is_terminal(self) -> bool {
        self != Self::Running
    }
}

closed_set!(
    /// How the client reached the gateway.
    Transport as "transport" {
        Http = "http",
        Websocket = "websocket",
    }
);

/// A group as it was when the request started (its name may change later).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupRef {
    pub id: GroupId,
    pub name: String,
}

/// The client key's account scope frozen at request start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RoutingSnapshot {
    All,
    Groups(Vec<GroupRef>),
}

closed_set!(
    /// Which kind of scope a request's key had when it started (`model_requests.routing_scope`).
    RoutingScope as "routing scope" {
        /// Every account.
        All = "all",
        /// The enabled members of the key's groups.
        Groups = "groups",
    }
);

impl RoutingSnapshot {
    pub fn scope(&self) -> RoutingScope {
        match self {
            Self::All => RoutingScope::All,
            Self::Groups(_) => RoutingScope::Groups,
        }
    }
}

/// The observation written when a request starts (before anything can reach upstream).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestStart {
    pub id: RequestId,
    pub client_key_id: Option<ClientKeyId>,
    pub requested_model: String,
    /// Dotted snake_case operation, e.g. `responses.create`, `chat.completions`.
    pub operation: String,
    pub transport: Transport,
    pub stream: bool,
    pub routing: RoutingSnapshot,
    pub started_at: OffsetDateTime,
    /// After this instant a still-running row is considered stale and recovered as `incomplete`.
    pub deadline_at: OffsetDateTime,
    /// The process that runs the request (`None` for rows written before it was recorded).
    pub runner: Option<Runner>,
}

/// A later observation of a request: progress (`status = Running`) or terminal. `None` fields
/// (here and in `outcome`) keep the stored value. The store applies the monotone rules in SQL:
/// the send-state watermark never falls, and a terminal row is never changed again (only its
/// watermark can still rise).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestUpdate {
    pub id: RequestId,
    pub status: RequestStatus,
    pub send_state: SendState,
    pub provider: Option<ProviderKind>,
    pub account_id: Option<AccountId>,
    /// Every attempt so far; replaces the stored ones.
    pub attempts: Option<Vec<Attempt>>,
    pub outcome: RequestOutcome,
    pub downstream_committed_at: Option<OffsetDateTime>,
    /// Required for a terminal status; ignored for progress.
    pub finished_at: Option<OffsetDateTime>,
    pub latency: LatencySplits,
}

impl RequestUpdate {
    /// An update that changes nothing but what the caller then sets.
    pub fn new(id: RequestId, status: RequestStatus, send_state: SendState) -> Self {
        Self {
            id,
            status,
            send_state,
            provider: None,
            account_id: None,
            attempts: None,
            outcome: RequestOutcome::default(),
            downstream_committed_at: None,
            finished_at: None,
            latency: LatencySplits::default(),
        }
    }
}

/// A stored request row, as read back (the request log, the admin usage detail, tests).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequestRecord {
    pub start: RequestStart,
    pub status: RequestStatus,
    pub send_state: SendState,
    pub provider: Option<ProviderKind>,
    pub account_id: Option<AccountId>,
    pub attempts: Vec<Attempt>,
    pub outcome: RequestOutcome,
    pub downstream_committed_at: Option<OffsetDateTime>,
    pub finished_at: Option<OffsetDateTime>,
    pub latency: LatencySplits,
}

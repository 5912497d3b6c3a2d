//! One upstream call of a request, as the request row keeps it (`model_requests.attempts`,
//! invariant 1: attempts live in the row, there is no attempt table). A domain type: its JSON
//! shape belongs to the store that writes it.

use time::OffsetDateTime;

use crate::domain::ids::AccountId;
use crate::domain::provider::ProviderKind;
use crate::domain::send_state::SendState;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// 1-based within the request.
    pub number: u32,
    pub provider: ProviderKind,
    pub account: AccountId,
    pub started_at: OffsetDateTime,
    /// `None` while the call runs.
    pub duration_ms: Option<u64>,
    pub outcome: AttemptOutcome,
    pub http_status: Option<u16>,
    pub send_state: SendState,
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// The call is running.
    Started,
    /// The upstream accepted the call.
    Ok,
    /// The call failed; the stable failure code (`AttemptFailure::code`).
    Failed(&'static str),
}

impl AttemptOutcome {
    /// What the row stores: `started`, `ok` or the failure code.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Started => "started",
            Self::Ok => "ok",
            Self::Failed(code) => code,
        }
    }
}

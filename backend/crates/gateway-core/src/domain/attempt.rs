//! One upstream call of a request, as the request row keeps it (`model_requests.attempts`,
//! invariant 1: attempts live in the row, there is no attempt table). A domain type: its JSON
//! shape belongs to the store that writes it.

use std::str::FromStr;

use time::OffsetDateTime;

use crate::domain::closed_set::UnknownVariant;
use crate::domain::ids::AccountId;
use crate::domain::provider::ProviderKind;
use crate::domain::send_state::SendState;
use crate::fault::Fault;

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
    /// The call failed with this fault (its code is the row's, `crate::fault`).
    Failed(Fault),
}

impl AttemptOutcome {
    /// What the row stores: `started`, `ok` or the failure code.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Started => "started",
            Self::Ok => "ok",
            Self::Failed(code) => code.as_str(),
        }
    }
}

impl FromStr for AttemptOutcome {
    type Err = UnknownVariant;

    /// The inverse of [`as_str`](Self::as_str).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "started" => Ok(Self::Started),
            "ok" => Ok(Self::Ok),
            code => code
                .parse()
                .map(Self::Failed)
                .map_err(|_| UnknownVariant { set: "attempt outcome", value: code.to_owned() }),
        }
    }
}

//! The failover policy as one pure decision over the fault table (`crate::fault`): given how an
//! attempt failed and what the request has already been through, what happens next. Before the
//! downstream commit only; after it nothing is retried.
//!
//! [`decide`] reads the failure's row: its cooldown rule becomes the account's feedback, its
//! `next` column says whether another account (or another egress path) is tried, its client
//! column what the client gets when the request stops. [`circuit_outcome`] says what the same
//! failure tells the provider circuit.

use std::time::Duration;

use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;

use crate::coordination::{AccountFeedback, CircuitOutcome};
use crate::domain::SendState;
use crate::fault::{Blame, ClientAnswer, CooldownRule, Fault};
use crate::provider::AttemptFailure;

/// The error official clients answer by resending the full history.
pub fn previous_response_not_found() -> ApiError {
    ApiError::new(
        ErrorCode::PreviousResponseNotFound,
        "Previous response not found; resend the full input without previous_response_id.",
    )
    .with_param("previous_response_id")
}

#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Renew the credential, then retry the same account.
    RecoverAndRetry,
    /// Give the account this feedback and try another one; `avoid_egress`: prefer accounts
    /// behind another egress path than the failed one's.
    NextAccount { feedback: Option<AccountFeedback>, avoid_egress: bool },
    /// Stop: the client receives this error.
    Fail(ApiError),
}

/// What the decision knows besides the failure.
#[derive(Debug, Clone, Copy)]
pub struct Circumstances<'a> {
    /// This account's credential was already renewed during this request.
    pub recovered: bool,
    pub model: &'a str,
    pub now: OffsetDateTime,
    /// Consecutive faults of this row on this account, this one included (for growing
    /// cooldowns; a success starts over).
    pub repeats: u32,
}

/// Decides after a failed attempt.
pub fn decide(failure: &AttemptFailure, at: &Circumstances<'_>) -> Next {
    let row = failure.row();
    // An outcome that may have been processed is never replayed, whatever the row says.
    if failure.send_state == SendState::Ambiguous && row.next != crate::fault::Next::Stop {
        return Next::Fail(client_error(failure, ClientAnswer::Error(ErrorCode::UpstreamTimeout)));
    }
    match row.next {
        crate::fault::Next::Stop | crate::fault::Next::AfterCommit | crate::fault::Next::NoRequest => {
            Next::Fail(client_error(failure, row.client))
        }
        crate::fault::Next::RefreshAndRetry if !at.recovered => Next::RecoverAndRetry,
        // A second refusal after the refresh is the credential's fault for now.
        crate::fault::Next::RefreshAndRetry => Next::NextAccount {
            feedback: cooldown_feedback(Fault::CredentialRefused, failure, at),
            avoid_egress: false,
        },
        crate::fault::Next::AnotherAccount => {
            Next::NextAccount { feedback: cooldown_feedback(failure.fault, failure, at), avoid_egress: false }
        }
        crate::fault::Next::AnotherEgressPath => {
            Next::NextAccount { feedback: cooldown_feedback(failure.fault, failure, at), avoid_egress: true }
        }
    }
}

/// The account feedback `fault`'s cooldown rule gives for `failure`.
pub fn cooldown_feedback(fault: Fault, failure: &AttemptFailure, at: &Circumstances<'_>) -> Option<AccountFeedback> {
    let duration = match fault.row().cooldown {
        CooldownRule::None | CooldownRule::RefreshBackoff | CooldownRule::Terminal => return None,
        CooldownRule::ExcludeModel(ttl) => {
            return Some(AccountFeedback::ExcludeModel { model: at.model.to_owned(), ttl });
        }
        CooldownRule::Fixed(duration) => duration,
        CooldownRule::UpstreamDeadline { fallback, max } => upstream_wait(failure, at.now).or(fallback)?.min(max),
        CooldownRule::Growing { base, max } => {
            let step = grown(base, at.repeats).min(max);
            upstream_wait(failure, at.now).map_or(step, |wait| wait.max(step)).min(max)
        }
    };
    Some(AccountFeedback::Cooldown { duration, fault })
}

/// `base` doubled once per repeat after the first.
pub fn grown(base: Duration, repeats: u32) -> Duration {
    let doublings = repeats.saturating_sub(1).min(16);
    base.saturating_mul(1 << doublings)
}

/// How long until the upstream's own deadline, when it gave one in the future.
fn upstream_wait(failure: &AttemptFailure, now: OffsetDateTime) -> Option<Duration> {
    let until = failure.until?;
    Duration::try_from(until - now).ok().filter(|d| !d.is_zero())
}

/// The client's error when `failure` ends the request with `answer`.
fn client_error(failure: &AttemptFailure, answer: ClientAnswer) -> ApiError {
    match answer {
        ClientAnswer::UpstreamRefusal => failure
            .refusal
            .as_deref()
            .cloned()
            .unwrap_or_else(|| ApiError::new(ErrorCode::InvalidRequest, "The upstream refused the request.")),
        ClientAnswer::Error(ErrorCode::PreviousResponseNotFound) => previous_response_not_found(),
        ClientAnswer::Error(ErrorCode::UpstreamTimeout) => ApiError::new(
            ErrorCode::UpstreamTimeout,
            "The upstream did not answer clearly; the request was not retried because it may have been processed.",
        ),
        ClientAnswer::Error(ErrorCode::GatewayOverloaded) => {
            ApiError::new(ErrorCode::GatewayOverloaded, "The gateway is out of connections; try again shortly.")
                .with_retry_after(1)
        }
        ClientAnswer::Error(ErrorCode::ClientVersionRejected) => ApiError::new(
            ErrorCode::ClientVersionRejected,
            "The upstream rejected the gateway's client version; the gateway is updating it, try again shortly.",
        )
        .with_retry_after(30),
        ClientAnswer::Error(ErrorCode::RequestTooLarge) => {
            ApiError::new(ErrorCode::RequestTooLarge, "The request is too large for the upstream.")
        }
        ClientAnswer::Error(code) => ApiError::new(code, "The upstream failed."),
        ClientAnswer::PoolRefusal | ClientAnswer::StreamError | ClientAnswer::Nobody => {
            ApiError::new(ErrorCode::NoAvailableAccount, "No account is available to serve this request right now.")
                .with_retry_after(1)
        }
    }
}

/// What a failed attempt tells its provider's circuit: rows the table marks as failures of the
/// upstream (connect, TLS, DNS, 5xx, edge error pages) count as failures; an answer of the
/// upstream about an account or the request shows it is up. An attempt that never reached the
/// upstream, an unclear outcome (a client can provoke one with a huge or slow body), an egress
/// fault and the gateway's own exhaustion say nothing.
pub fn circuit_outcome(failure: &AttemptFailure) -> Option<CircuitOutcome> {
    let row = failure.row();
    if row.surface != crate::fault::Surface::DataPlane {
        return None;
    }
    if row.circuit_failure {
        return Some(CircuitOutcome::Failure);
    }
    if matches!(row.blame, Blame::Nobody | Blame::Egress) || failure.send_state != SendState::Sent {
        return None;
    }
    Some(CircuitOutcome::Success)
}

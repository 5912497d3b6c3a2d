//! The failover policy as one pure decision: given how an attempt failed and what the request
//! has already been through, what happens next. Before the downstream commit only; after it
//! nothing is retried.
//!
//! | failure | next |
//! | --- | --- |
//! | 401 | refresh the credential once and retry the same account; a second 401 → next account |
//! | 429 / quota | cooldown until the reset (60 s when unknown), next account |
//! | model not supported | exclude the account for this model (1 h), next account |
//! | account unusable (banned, forbidden) | cooldown 30 min, next account |
//! | 5xx, connect failed | next account; the account is not blamed (the provider circuit counts it) |
//! | egress proxy failed (down, refused the tunnel) | next account; nothing blamed, the circuit does not count it |
//! | ambiguous (timeout/reset after the write) | never replayed: the client gets the error |
//! | rejected (the request itself: 4xx about the body, 1009, too big to send) | the client gets the error; no other account, no account state |
//! | gateway out of descriptors/ports | 503 `gateway_overloaded`; no account is blamed |
//! | client version rejected (xAI 426) | 502 `client_version_rejected`; no account is blamed |
//!
//! [`circuit_outcome`] says what the same failure tells the provider circuit: only connect
//! failures and 5xx count as failures; any other answer shows the upstream is up.

use std::time::Duration;

use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;

use crate::coordination::{AccountFeedback, CircuitOutcome};
use crate::domain::SendState;
use crate::provider::{AttemptFailure, FailureClass};

pub const DEFAULT_RATE_LIMIT_COOLDOWN: Duration = Duration::from_secs(60);
pub const UNUSABLE_COOLDOWN: Duration = Duration::from_secs(30 * 60);
pub const UNAUTHORIZED_COOLDOWN: Duration = Duration::from_secs(10 * 60);
pub const MODEL_EXCLUSION: Duration = Duration::from_secs(60 * 60);
/// Longest cooldown taken from an upstream reset time.
pub const MAX_COOLDOWN: Duration = Duration::from_secs(7 * 24 * 3600);

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
    /// Give the account this feedback and try another one.
    NextAccount(Option<AccountFeedback>),
    /// Stop: the client receives this error.
    Fail(ApiError),
}

/// Decides after a failed attempt. `recovered` tells whether this account's credential was
/// already renewed during this request.
pub fn decide(failure: &AttemptFailure, recovered: bool, model: &str, now: OffsetDateTime) -> Next {
    if failure.send_state == SendState::Ambiguous || failure.class == FailureClass::Ambiguous {
        return Next::Fail(ApiError::new(
            ErrorCode::UpstreamTimeout,
            "The upstream did not answer clearly; the request was not retried because it may have been processed.",
        ));
    }
    match &failure.class {
        FailureClass::Rejected(error) => Next::Fail((**error).clone()),
        FailureClass::ContinuationLost => Next::Fail(previous_response_not_found()),
        FailureClass::GatewayOverloaded => Next::Fail(
            ApiError::new(ErrorCode::GatewayOverloaded, "The gateway is out of connections; try again shortly.")
                .with_retry_after(1),
        ),
        FailureClass::ClientVersionRejected => Next::Fail(
            ApiError::new(
                ErrorCode::ClientVersionRejected,
                "The upstream rejected the gateway's client version; the gateway is updating it, try again shortly.",
            )
            .with_retry_after(30),
        ),
        FailureClass::Unauthorized if !recovered => Next::RecoverAndRetry,
        FailureClass::Unauthorized => {
            Next::NextAccount(Some(AccountFeedback::Cooldown { duration: UNAUTHORIZED_COOLDOWN }))
        }
        FailureClass::RateLimited { until } => {
            let duration = until
                .map(|until| until - now)
                .and_then(|d| Duration::try_from(d).ok())
                .filter(|d| !d.is_zero())
                .unwrap_or(DEFAULT_RATE_LIMIT_COOLDOWN)
                .min(MAX_COOLDOWN);
            Next::NextAccount(Some(AccountFeedback::Cooldown { duration }))
        }
        FailureClass::ModelNotSupported => {
            Next::NextAccount(Some(AccountFeedback::ExcludeModel { model: model.to_owned(), ttl: MODEL_EXCLUSION }))
        }
        FailureClass::AccountUnusable { .. } => {
            Next::NextAccount(Some(AccountFeedback::Cooldown { duration: UNUSABLE_COOLDOWN }))
        }
        // Infrastructure: the same for every account of the provider, and possibly caused by
        // the request's content. Another account may succeed; none is cooled down for it (one
        // request could otherwise cool down the whole pool). The provider circuit counts it.
        FailureClass::UpstreamUnavailable | FailureClass::ConnectFailed => Next::NextAccount(None),
        // The account's proxy, not the account nor the upstream: another account (behind
        // another route) may serve; cooling this one would only hide the proxy fault.
        FailureClass::ProxyFailed => Next::NextAccount(None),
        FailureClass::Ambiguous => Next::Fail(ApiError::new(ErrorCode::UpstreamTimeout, "ambiguous upstream outcome")),
    }
}

/// What a failed attempt tells its provider's circuit: connect failures and 5xx are
/// infrastructure failures; any other answer from the upstream (an account's or the request's
/// own error) shows it is up. An attempt that never reached the upstream, an unclear outcome (a
/// client can provoke one with a huge or slow body) and the gateway's own exhaustion say nothing.
pub fn circuit_outcome(failure: &AttemptFailure) -> Option<CircuitOutcome> {
    match failure.class {
        FailureClass::ConnectFailed | FailureClass::UpstreamUnavailable => Some(CircuitOutcome::Failure),
        FailureClass::Ambiguous
        | FailureClass::GatewayOverloaded
        | FailureClass::ClientVersionRejected
        | FailureClass::ProxyFailed => None,
        _ if failure.send_state == SendState::NotSent => None,
        _ => Some(CircuitOutcome::Success),
    }
}

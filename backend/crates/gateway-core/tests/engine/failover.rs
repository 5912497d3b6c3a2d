use std::time::Duration;

use gateway_core::coordination::{AccountFeedback, CircuitOutcome};
use gateway_core::domain::SendState;
use gateway_core::engine::failover::{Next, circuit_outcome, decide};
use gateway_core::provider::{AttemptFailure, FailureClass};
use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;

fn failure(class: FailureClass, send_state: SendState) -> AttemptFailure {
    AttemptFailure::new(class, send_state, "test")
}

#[test]
fn unauthorized_recovers_once_then_moves_on() {
    let now = OffsetDateTime::now_utc();
    let f = failure(FailureClass::Unauthorized, SendState::Sent);
    assert_eq!(decide(&f, false, "m", now), Next::RecoverAndRetry);
    assert!(matches!(decide(&f, true, "m", now), Next::NextAccount(Some(AccountFeedback::Cooldown { .. }))));
}

#[test]
fn rate_limits_cool_the_account_until_the_reset() {
    let now = OffsetDateTime::now_utc();
    let f = failure(FailureClass::RateLimited { until: Some(now + time::Duration::seconds(120)) }, SendState::Sent);
    assert_eq!(
        decide(&f, false, "m", now),
        Next::NextAccount(Some(AccountFeedback::Cooldown { duration: Duration::from_secs(120) }))
    );
    let unknown = failure(FailureClass::RateLimited { until: None }, SendState::Sent);
    assert_eq!(
        decide(&unknown, false, "m", now),
        Next::NextAccount(Some(AccountFeedback::Cooldown { duration: Duration::from_secs(60) }))
    );
}

#[test]
fn model_not_supported_excludes_only_that_model() {
    let f = failure(FailureClass::ModelNotSupported, SendState::Sent);
    assert_eq!(
        decide(&f, false, "gpt-x", OffsetDateTime::now_utc()),
        Next::NextAccount(Some(AccountFeedback::ExcludeModel {
            model: "gpt-x".to_owned(),
            ttl: Duration::from_secs(3600)
        }))
    );
}

#[test]
fn server_errors_and_connect_failures_move_on_without_blaming_the_account() {
    for class in [FailureClass::UpstreamUnavailable, FailureClass::ConnectFailed] {
        let f = failure(class, SendState::NotSent);
        assert_eq!(decide(&f, false, "m", OffsetDateTime::now_utc()), Next::NextAccount(None));
    }
}

#[test]
fn ambiguous_outcomes_are_never_replayed() {
    let f = failure(FailureClass::Ambiguous, SendState::Ambiguous);
    assert!(
        matches!(decide(&f, false, "m", OffsetDateTime::now_utc()), Next::Fail(e) if e.code == ErrorCode::UpstreamTimeout)
    );
    // Even a retryable class is not replayed once the watermark says ambiguous.
    let f = failure(FailureClass::UpstreamUnavailable, SendState::Ambiguous);
    assert!(matches!(decide(&f, false, "m", OffsetDateTime::now_utc()), Next::Fail(_)));
}

#[test]
fn a_refused_request_reaches_the_client_as_it_is() {
    let error = ApiError::new(ErrorCode::InvalidRequest, "bad input");
    let f = failure(FailureClass::Rejected(Box::new(error.clone())), SendState::Sent);
    assert_eq!(decide(&f, false, "m", OffsetDateTime::now_utc()), Next::Fail(error));
}

#[test]
fn running_out_of_local_connections_blames_no_account() {
    let f = failure(FailureClass::GatewayOverloaded, SendState::NotSent);
    match decide(&f, false, "m", OffsetDateTime::now_utc()) {
        Next::Fail(error) => assert_eq!(error.code, ErrorCode::GatewayOverloaded),
        other => panic!("expected a failure without feedback, got {other:?}"),
    }
}

/// What a failure does to the account that served the attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Account {
    Untouched,
    Cooldown,
    ExcludeModel,
}

/// What the request does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Then {
    /// Renew the credential and retry on the same account.
    SameAccount,
    /// Try another account (failover).
    NextAccount,
    /// Stop: the client gets this HTTP status.
    Client(u16),
}

fn effect(next: &Next) -> (Account, Then) {
    match next {
        Next::RecoverAndRetry => (Account::Untouched, Then::SameAccount),
        Next::NextAccount(None) => (Account::Untouched, Then::NextAccount),
        Next::NextAccount(Some(AccountFeedback::Cooldown { .. })) => (Account::Cooldown, Then::NextAccount),
        Next::NextAccount(Some(AccountFeedback::ExcludeModel { .. })) => (Account::ExcludeModel, Then::NextAccount),
        Next::Fail(error) => (Account::Untouched, Then::Client(error.status())),
    }
}

/// What a failure tells the provider circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Circuit {
    /// An infrastructure failure: counts towards opening the circuit.
    Failure,
    /// The upstream answered (an account's or the request's own error): it is up.
    Up,
    /// Nothing reached the upstream, or the outcome says nothing about it.
    Nothing,
}

/// Every failure class once; the `match` fails to compile when a class is added without a row.
/// The circuit column holds for an attempt that reached the upstream (`Sent`).
fn row(class: &FailureClass) -> (Account, Then, Circuit) {
    match class {
        FailureClass::Unauthorized => (Account::Untouched, Then::SameAccount, Circuit::Up),
        FailureClass::RateLimited { .. } => (Account::Cooldown, Then::NextAccount, Circuit::Up),
        FailureClass::ModelNotSupported => (Account::ExcludeModel, Then::NextAccount, Circuit::Up),
        FailureClass::AccountUnusable { .. } => (Account::Cooldown, Then::NextAccount, Circuit::Up),
        // Infrastructure: another account may succeed, but this one is not to blame.
        FailureClass::UpstreamUnavailable => (Account::Untouched, Then::NextAccount, Circuit::Failure),
        FailureClass::ConnectFailed => (Account::Untouched, Then::NextAccount, Circuit::Failure),
        // The account's egress proxy: another account may serve; neither the account nor the
        // upstream is to blame (decision 0242).
        FailureClass::ProxyFailed => (Account::Untouched, Then::NextAccount, Circuit::Nothing),
        // May have been processed; a client can provoke it (a huge body, a slow upload).
        FailureClass::Ambiguous => (Account::Untouched, Then::Client(504), Circuit::Nothing),
        // The request's own fault: the client gets the error, nothing else happens.
        FailureClass::Rejected(error) => (Account::Untouched, Then::Client(error.status()), Circuit::Up),
        FailureClass::GatewayOverloaded => (Account::Untouched, Then::Client(503), Circuit::Nothing),
        FailureClass::ContinuationLost => (Account::Untouched, Then::Client(400), Circuit::Up),
        // The gateway's own client version: no account is to blame, the upstream's health is unknown.
        FailureClass::ClientVersionRejected => (Account::Untouched, Then::Client(502), Circuit::Nothing),
    }
}

fn circuit(failure: &AttemptFailure) -> Circuit {
    match circuit_outcome(failure) {
        Some(CircuitOutcome::Failure) => Circuit::Failure,
        Some(CircuitOutcome::Success) => Circuit::Up,
        None => Circuit::Nothing,
    }
}

#[test]
fn the_failover_table_covers_every_failure_class() {
    let now = OffsetDateTime::now_utc();
    let too_large = ApiError::new(ErrorCode::RequestTooLarge, "too large");
    let mut unprocessable = ApiError::new(ErrorCode::InvalidRequest, "bad field");
    unprocessable.status_override = Some(422);
    let classes = [
        FailureClass::Unauthorized,
        FailureClass::RateLimited { until: None },
        FailureClass::RateLimited { until: Some(now + time::Duration::seconds(30)) },
        FailureClass::ModelNotSupported,
        FailureClass::AccountUnusable { reason: "account_deactivated".to_owned() },
        FailureClass::UpstreamUnavailable,
        FailureClass::ConnectFailed,
        FailureClass::ProxyFailed,
        FailureClass::Ambiguous,
        FailureClass::Rejected(Box::new(ApiError::new(ErrorCode::InvalidRequest, "bad input"))),
        FailureClass::Rejected(Box::new(too_large)),
        FailureClass::Rejected(Box::new(unprocessable)),
        FailureClass::GatewayOverloaded,
        FailureClass::ContinuationLost,
        FailureClass::ClientVersionRejected,
    ];
    for class in classes {
        let (account, then, on_circuit) = row(&class);
        let sent = failure(class.clone(), SendState::Sent);
        assert_eq!(circuit(&sent), on_circuit, "{class:?}");
        // Only a connect failure is an infrastructure failure without anything sent; any other
        // class that never left the process tells the circuit nothing.
        let not_sent = failure(class.clone(), SendState::NotSent);
        let expected = if class == FailureClass::ConnectFailed || class == FailureClass::UpstreamUnavailable {
            Circuit::Failure
        } else {
            Circuit::Nothing
        };
        assert_eq!(circuit(&not_sent), expected, "{class:?} not sent");
        for send_state in [SendState::NotSent, SendState::Sent] {
            let f = failure(class.clone(), send_state);
            assert_eq!(effect(&decide(&f, false, "m", now)), (account, then), "{class:?} ({send_state:?})");
            // Whatever the class, an outcome that may have been processed is never replayed and
            // blames no account.
            let f = failure(class.clone(), SendState::Ambiguous);
            assert_eq!(effect(&decide(&f, false, "m", now)), (Account::Untouched, Then::Client(504)), "{class:?}");
        }
    }
    // The second 401 of the same account, after its credential was renewed.
    let f = failure(FailureClass::Unauthorized, SendState::Sent);
    assert_eq!(effect(&decide(&f, true, "m", now)), (Account::Cooldown, Then::NextAccount));
}

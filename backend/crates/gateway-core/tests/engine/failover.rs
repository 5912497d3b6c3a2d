use std::time::Duration;

use gateway_core::coordination::AccountFeedback;
use gateway_core::domain::SendState;
use gateway_core::engine::failover::{Next, decide};
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
fn server_errors_and_connect_failures_move_to_the_next_account() {
    for class in [FailureClass::UpstreamUnavailable, FailureClass::ConnectFailed] {
        let f = failure(class, SendState::NotSent);
        assert!(matches!(decide(&f, false, "m", OffsetDateTime::now_utc()), Next::NextAccount(Some(_))));
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

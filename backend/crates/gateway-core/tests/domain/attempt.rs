use gateway_core::domain::{AttemptFailureCode, AttemptOutcome, SendState};
use gateway_core::provider::{AttemptFailure, FailureClass};
use gateway_protocol::{ApiError, ErrorCode};

#[test]
fn every_attempt_outcome_reads_back_from_its_stored_text() {
    let mut outcomes = vec![AttemptOutcome::Started, AttemptOutcome::Ok];
    outcomes.extend(AttemptFailureCode::ALL.iter().copied().map(AttemptOutcome::Failed));
    for outcome in outcomes {
        assert_eq!(outcome.as_str().parse::<AttemptOutcome>(), Ok(outcome));
    }
    let unknown = "upstream_exploded".parse::<AttemptOutcome>().expect_err("not an outcome");
    assert_eq!(unknown.to_string(), "unknown attempt outcome `upstream_exploded`");
}

/// Stored rows keep these spellings: a failure class's code is never renamed.
#[test]
fn failure_classes_keep_their_stored_codes() {
    let rejected = FailureClass::Rejected(Box::new(ApiError::new(ErrorCode::InvalidRequest, "bad")));
    let table = [
        (FailureClass::Unauthorized, "upstream_unauthorized"),
        (FailureClass::RateLimited { until: None }, "upstream_rate_limited"),
        (FailureClass::ModelNotSupported, "model_not_supported"),
        (FailureClass::AccountUnusable { reason: "banned".to_owned() }, "account_unusable"),
        (FailureClass::UpstreamUnavailable, "upstream_unavailable"),
        (FailureClass::ConnectFailed, "upstream_connect_failed"),
        (FailureClass::ProxyFailed, "egress_proxy_failed"),
        (FailureClass::Ambiguous, "upstream_ambiguous"),
        (rejected, "upstream_rejected"),
        (FailureClass::GatewayOverloaded, "gateway_overloaded"),
        (FailureClass::ClientVersionRejected, "client_version_rejected"),
        (FailureClass::ContinuationLost, "previous_response_not_found"),
    ];
    assert_eq!(table.len(), AttemptFailureCode::ALL.len(), "one code per class");
    for (class, code) in table {
        let failure = AttemptFailure::new(class, SendState::Sent, "scripted");
        assert_eq!((failure.code(), failure.failure_code().as_str()), (code, code));
    }
}

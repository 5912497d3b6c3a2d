use gateway_protocol::{ApiError, ErrorCode};

#[test]
fn errors_have_the_openai_shape_with_stable_codes() {
    let err = ApiError::new(ErrorCode::ModelNotFound, "The model `x` does not exist").with_param("model");
    assert_eq!(err.status(), 404);
    let body: serde_json::Value = serde_json::from_slice(&err.body()).expect("json");
    assert_eq!(body["error"]["code"], "model_not_found");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert_eq!(body["error"]["param"], "model");
    assert_eq!(body["error"]["message"], "The model `x` does not exist");
}

#[test]
fn every_code_has_a_distinct_string_and_a_client_or_server_status() {
    use ErrorCode::*;
    let all = [
        InvalidApiKey,
        ApiKeyDisabled,
        ApiKeyExpired,
        InvalidRequest,
        InvalidJson,
        RequestTooLarge,
        RequestTimeout,
        ModelNotFound,
        ModelNotAllowed,
        PreviousResponseNotFound,
        RateLimitExceeded,
        ConcurrencyLimitExceeded,
        BudgetExceeded,
        NoAvailableAccount,
        CoordinationUnavailable,
        UpstreamError,
        UpstreamTimeout,
        StreamInterrupted,
        NotFound,
        MethodNotAllowed,
        ShuttingDown,
        GatewayOverloaded,
        ClientVersionRejected,
        InternalError,
    ];
    let mut codes: Vec<&str> = all.iter().map(|c| c.code()).collect();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), all.len());
    assert!(all.iter().all(|c| (400..600).contains(&c.status())));
}

#[test]
fn the_stream_form_is_an_error_event() {
    let err = ApiError::new(ErrorCode::StreamInterrupted, "upstream closed");
    let event: serde_json::Value = serde_json::from_slice(&err.stream_event(Some(4))).expect("json");
    assert_eq!(event["type"], "error");
    assert_eq!(event["code"], "stream_interrupted");
    assert_eq!(event["sequence_number"], 4);
}

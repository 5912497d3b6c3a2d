//! Usage view rules: bucket choice, completeness of attempts, error table.

use gateway_admin::AdminError;
use gateway_admin::usage::BucketWidth;
use gateway_core::ports::StorageError;

#[test]
fn automatic_buckets_keep_ranges_under_about_400_points() {
    assert_eq!(BucketWidth::automatic(time::Duration::hours(1)), BucketWidth::Minute);
    assert_eq!(BucketWidth::automatic(time::Duration::hours(24)), BucketWidth::FiveMinutes);
    assert_eq!(BucketWidth::automatic(time::Duration::days(3)), BucketWidth::FifteenMinutes);
    assert_eq!(BucketWidth::automatic(time::Duration::days(7)), BucketWidth::Hour);
    assert_eq!(BucketWidth::automatic(time::Duration::days(90)), BucketWidth::Day);
    assert_eq!("15m".parse::<BucketWidth>().ok(), Some(BucketWidth::FifteenMinutes));
}

#[test]
fn errors_map_to_stable_codes_and_statuses_without_internals() {
    let cases = [
        (AdminError::invalid("name", "bad"), "invalid_input", 422),
        (AdminError::NotFound("x".into()), "not_found", 404),
        (AdminError::Conflict("x".into()), "conflict", 409),
        (AdminError::InvalidCredentials, "invalid_credentials", 401),
        (AdminError::RateLimited { retry_after_seconds: 3 }, "rate_limited", 429),
        (AdminError::RevisionMismatch { current: 4 }, "revision_mismatch", 412),
        (AdminError::Unsupported("x".into()), "provider_unsupported", 422),
        (AdminError::TotpInvalid, "totp_invalid", 401),
        (AdminError::Storage(StorageError::Unavailable("pool".into())), "storage_unavailable", 503),
    ];
    for (error, code, status) in cases {
        assert_eq!(error.code(), code);
        assert_eq!(error.http_status(), status, "{code}");
    }
    let internal = AdminError::Storage(StorageError::Internal("SELECT secret".into()));
    assert_eq!(internal.public_message(), "internal storage error");
    let from_storage: AdminError = StorageError::not_found("account", 7).into();
    assert_eq!(from_storage.code(), "not_found");
}

/// A finished row closed with `error_code`.
fn closed_row(error_code: Option<&str>) -> gateway_admin::usage::RequestDetail {
    use gateway_core::domain::{
        LatencySplits, ModelRequestRecord, RequestId, RequestOutcome, RequestStart, RequestStatus, RoutingSnapshot,
        SendState, Transport,
    };
    let now = time::OffsetDateTime::now_utc();
    let start = RequestStart {
        id: RequestId::new(),
        client_key_id: None,
        requested_model: "gpt-5".to_owned(),
        operation: "responses.create".to_owned(),
        transport: Transport::Http,
        stream: true,
        routing: RoutingSnapshot::All,
        started_at: now,
        deadline_at: now,
        runner: None,
    };
    let outcome = RequestOutcome { error_code: error_code.map(str::to_owned), ..RequestOutcome::default() };
    let request = ModelRequestRecord {
        start,
        status: RequestStatus::Incomplete,
        send_state: SendState::Sent,
        provider: None,
        account_id: None,
        attempts: Vec::new(),
        outcome,
        downstream_committed_at: Some(now),
        finished_at: Some(now),
        latency: LatencySplits::default(),
    };
    gateway_admin::usage::RequestDetail { request, client_key_name: None, account_email: None }
}

#[test]
fn attempts_are_incomplete_on_rows_closed_by_recovery() {
    for code in ["stale_recovered", "replica_lost", "replica_restarted"] {
        assert!(!closed_row(Some(code)).attempts_complete(), "{code}: its last observations may be missing");
    }
    assert!(closed_row(Some("upstream_reset")).attempts_complete());
    assert!(closed_row(None).attempts_complete());
}

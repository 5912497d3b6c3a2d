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

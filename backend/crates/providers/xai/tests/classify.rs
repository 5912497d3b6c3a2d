//! PROTOCOL H.5 as a table: status + body → failure class, send state and quota evidence.

use gateway_core::domain::{QuotaState, SendState};
use gateway_core::fault::Fault;
use gateway_core::provider::AttemptFailure;
use gateway_transport::error_source;
use http::HeaderMap;
use provider_xai::classify::{classify, scrub};
use time::OffsetDateTime;

#[derive(Debug, PartialEq)]
enum Want {
    VersionRejected,
    Unauthorized,
    /// A cooldown row: the fault, whether the quota is recorded exhausted, and the upstream's
    /// deadline in seconds (-1: none).
    Cooling {
        fault: Fault,
        quota: bool,
        after: i64,
    },
    ModelNotSupported,
    Unusable(Fault),
    Rejected(u16),
    Unavailable,
    Ambiguous,
}

fn kind(failure: &AttemptFailure, now: OffsetDateTime) -> Want {
    let quota = failure.quota.as_ref().is_some_and(|q| q.state == QuotaState::Exhausted);
    let after = failure.until.map(|u| (u - now).whole_seconds()).unwrap_or(-1);
    match failure.fault {
        Fault::ClientVersionRejected => Want::VersionRejected,
        Fault::UpstreamUnauthorized => Want::Unauthorized,
        fault @ (Fault::UsageLimitReached | Fault::UpstreamRateLimited | Fault::RateLimitedWithoutDeadline) => {
            Want::Cooling { fault, quota, after }
        }
        Fault::ModelNotSupported => Want::ModelNotSupported,
        fault @ (Fault::AccountDeactivated | Fault::AccountUnusable) => Want::Unusable(fault),
        Fault::UpstreamRejected => Want::Rejected(failure.refusal.as_ref().expect("refusal").status()),
        Fault::UpstreamUnavailable => Want::Unavailable,
        Fault::UpstreamAmbiguous => Want::Ambiguous,
        other => panic!("unexpected fault {other:?}"),
    }
}

fn classified(status: u16, body: &str, retry_after: Option<i64>, now: OffsetDateTime) -> AttemptFailure {
    let source = error_source(&HeaderMap::new(), body.as_bytes());
    classify(status, body.as_bytes(), retry_after, source, now)
}

#[test]
fn the_error_table() {
    let now = OffsetDateTime::now_utc();
    let rows: &[(u16, &str, Option<i64>, Want)] = &[
        (
            426,
            r#"{"error":"Your Grok CLI version (none) is outdated. Please update to version 0.1.202 or later."}"#,
            None,
            Want::VersionRejected,
        ),
        (401, r#"{"code":"unauthenticated","error":"Invalid or expired access token."}"#, None, Want::Unauthorized),
        (
            403,
            r#"{"code":"unauthenticated:bad-credentials","error":"The OAuth2 access token could not be validated."}"#,
            None,
            Want::Unauthorized,
        ),
        (
            402,
            r#"{"code":"personal-team-blocked:spending-limit","error":"Your team has reached its monthly spending limit."}"#,
            Some(600),
            Want::Cooling { fault: Fault::UsageLimitReached, quota: true, after: 600 },
        ),
        (
            429,
            r#"{"code":"subscription:free-usage-exhausted","error":"You have used all the included free usage for model grok-4.5."}"#,
            None,
            Want::Cooling { fault: Fault::UsageLimitReached, quota: true, after: 86_400 },
        ),
        (
            429,
            r#"{"code":"rate_limit_exceeded","error":"Too many requests."}"#,
            Some(7),
            Want::Cooling { fault: Fault::UpstreamRateLimited, quota: false, after: 7 },
        ),
        (
            429,
            r#"{"code":"rate_limit_exceeded","error":"Too many requests."}"#,
            None,
            Want::Cooling { fault: Fault::RateLimitedWithoutDeadline, quota: false, after: -1 },
        ),
        (
            402,
            r#"{"code":"payment_required","error":"Payment required."}"#,
            None,
            Want::Cooling { fault: Fault::UpstreamRateLimited, quota: false, after: 1800 },
        ),
        (
            403,
            r#"{"code":"permission-denied:account-blocked","error":"Your account has been suspended."}"#,
            None,
            Want::Unusable(Fault::AccountDeactivated),
        ),
        (
            403,
            r#"{"code":"forbidden","error":"Your request was flagged by our safety system."}"#,
            None,
            Want::Rejected(403),
        ),
        (403, r#"{"error":"Access to the chat endpoint is denied for this model."}"#, None, Want::ModelNotSupported),
        (
            404,
            r#"{"code":"Some requested entity was not found","error":"The model grok-9 does not exist or your team does not have access to it."}"#,
            None,
            Want::ModelNotSupported,
        ),
        (
            400,
            r#"{"code":"Client specified an invalid argument","error":"Invalid request."}"#,
            None,
            Want::Rejected(400),
        ),
        (
            400,
            r#"{"code":"invalid_encrypted_content","error":"Could not decrypt the encrypted_content."}"#,
            None,
            Want::Rejected(400),
        ),
        (422, "not json", None, Want::Rejected(422)),
        (408, "", None, Want::Ambiguous),
        (500, r#"{"code":"internal","error":"Internal server error."}"#, None, Want::Unavailable),
        (529, r#"{"code":"overloaded","error":"The service is overloaded."}"#, None, Want::Unavailable),
    ];
    for (status, body, retry_after, want) in rows {
        let failure = classified(*status, body, *retry_after, now);
        assert_eq!(&kind(&failure, now), want, "{status} {body}");
        assert_eq!(failure.http_status, Some(*status));
        let expected_state = if *status == 408 { SendState::Ambiguous } else { SendState::Sent };
        assert_eq!(failure.send_state, expected_state, "{status}");
    }
}

#[test]
fn a_free_usage_window_is_a_rolling_day_and_shows_as_a_quota_window() {
    let now = OffsetDateTime::now_utc();
    let body = br#"{"code":"subscription:free-usage-exhausted","error":"used all the included free usage"}"#;
    let failure = classify(429, body, None, gateway_transport::ErrorSource::Origin, now);
    let facts = failure.quota.expect("quota facts");
    assert_eq!(facts.windows[0].name, "free_usage");
    assert_eq!(facts.windows[0].window_minutes, Some(1440));
    assert!(facts.windows[0].is_full());
}

#[test]
fn uuids_and_emails_in_upstream_messages_become_placeholders() {
    let text = "Team 5f0c3a52-9d1b-4f7e-8a11-2b3c4d5e6f70 (owner a@b.io) hit\u{7}its limit";
    let scrubbed = scrub(text);
    assert_eq!(scrubbed, "Team [redacted] (owner [redacted] hit its limit");
    let failure = classify(
        400,
        format!(r#"{{"error":"{text}"}}"#).as_bytes(),
        None,
        gateway_transport::ErrorSource::Origin,
        OffsetDateTime::now_utc(),
    );
    let error = failure.refusal.expect("the request is refused");
    assert!(!error.message.contains("5f0c3a52"), "{}", error.message);
}

//! The provider's classification table, driven through the engine's real failover decision:
//! every upstream status, error frame, close code and transport failure the provider tells apart,
//! with what it does to the account (cooldown / model exclusion / nothing) and whether the
//! request moves to another account. A failure caused by the request itself never touches an
//! account and is never tried elsewhere.

use gateway_core::coordination::AccountFeedback;
use gateway_core::engine::failover::{Circumstances, Next, decide};
use gateway_core::fault::Fault;
use gateway_core::provider::AttemptFailure;
use gateway_transport::SendError;
use http::{HeaderMap, HeaderName, HeaderValue};
use provider_openai::classify::{
    ErrorAnswer, classify, classify_close, classify_error_frame, classify_socket_send, classify_transport,
};
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Account {
    Untouched,
    Cooldown,
    ExcludeModel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Then {
    /// Renew the credential and retry on the same account.
    SameAccount,
    NextAccount,
    /// The client gets this status and error code.
    Client(u16, &'static str),
}

use Account::*;
use Then::*;

fn effect(failure: &AttemptFailure) -> (Account, Then, String) {
    let at = Circumstances { recovered: false, model: "gpt-5.4", now: OffsetDateTime::now_utc(), repeats: 1 };
    match decide(failure, &at) {
        Next::RecoverAndRetry => (Untouched, SameAccount, String::new()),
        Next::NextAccount { feedback: None, .. } => (Untouched, NextAccount, String::new()),
        Next::NextAccount { feedback: Some(AccountFeedback::Cooldown { .. }), .. } => {
            (Cooldown, NextAccount, String::new())
        }
        Next::NextAccount { feedback: Some(AccountFeedback::ExcludeModel { .. }), .. } => {
            (ExcludeModel, NextAccount, String::new())
        }
        Next::Fail(error) => {
            let body: Value = serde_json::from_slice(&error.body()).expect("OpenAI error shape");
            let code = body["error"]["code"].as_str().unwrap_or_default().to_owned();
            let message = body["error"]["message"].as_str().unwrap_or_default().to_owned();
            (Untouched, Client(error.status(), Box::leak(code.into_boxed_str())), message)
        }
    }
}

fn http(status: u16, body: &str) -> AttemptFailure {
    with_headers(status, &[], body)
}

fn with_headers(status: u16, headers: &[(&'static str, &str)], body: &str) -> AttemptFailure {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        map.insert(HeaderName::from_static(name), HeaderValue::from_str(value).expect("header value"));
    }
    classify(&ErrorAnswer { status, headers: &map, body: body.as_bytes() }, OffsetDateTime::now_utc())
}

fn frame(value: Value) -> AttemptFailure {
    classify_error_frame(value.to_string().as_bytes(), OffsetDateTime::now_utc())
}

const MODEL_REFUSAL: &str = "The 'gpt-5' model is not supported when using Codex with a ChatGPT account.";

#[test]
fn every_http_answer_the_provider_classifies() {
    let rows: Vec<(u16, String, Account, Then)> = vec![
        (401, json!({"detail": "Unauthorized"}).to_string(), Untouched, SameAccount),
        (
            429,
            json!({"error": {"type": "usage_limit_reached", "resets_in_seconds": 120}}).to_string(),
            Cooldown,
            NextAccount,
        ),
        (429, json!({"error": {"type": "usage_not_included"}}).to_string(), Cooldown, NextAccount),
        (403, json!({"error": {"code": "account_deactivated", "message": "Account deactivated"}}).to_string(), Cooldown, NextAccount),
        (403, json!({"detail": "Forbidden"}).to_string(), Cooldown, NextAccount),
        (400, json!({"detail": MODEL_REFUSAL}).to_string(), ExcludeModel, NextAccount),
        (404, json!({"detail": MODEL_REFUSAL}).to_string(), ExcludeModel, NextAccount),
        // The request's own fault: its status reaches the client, no account is touched.
        (400, json!({"detail": "Invalid input item"}).to_string(), Untouched, Client(400, "invalid_request")),
        (
            400,
            json!({"detail": "Parameter 'reasoning.summary' is not supported when using Codex with a ChatGPT account."})
                .to_string(),
            Untouched,
            Client(400, "invalid_request"),
        ),
        (
            400,
            json!({"error": {"code": "invalid_encrypted_content", "message": "The encrypted content could not be decrypted"}})
                .to_string(),
            Untouched,
            Client(400, "invalid_encrypted_content"),
        ),
        (
            403,
            json!({"error": {"message": "This request has been flagged for possibly violating our usage policy."}})
                .to_string(),
            Untouched,
            Client(403, "invalid_request"),
        ),
        (404, json!({"detail": "Not Found"}).to_string(), Untouched, Client(404, "invalid_request")),
        (413, "<html><body>413 Request Entity Too Large</body></html>".to_owned(), Untouched, Client(413, "request_too_large")),
        (413, json!({"detail": "Request too large"}).to_string(), Untouched, Client(413, "request_too_large")),
        (
            422,
            json!({"detail": [{"loc": ["body", "input"], "msg": "field required"}]}).to_string(),
            Untouched,
            Client(422, "invalid_request"),
        ),
        // Infrastructure: another account may be served, this one is not to blame.
        (500, json!({"error": {"type": "server_error"}}).to_string(), Untouched, NextAccount),
        (502, "<html>Bad Gateway</html>".to_owned(), Untouched, NextAccount),
        (503, json!({"error": {"code": "server_is_overloaded"}}).to_string(), Untouched, NextAccount),
        (529, String::new(), Untouched, NextAccount),
        (302, String::new(), Untouched, NextAccount),
    ];
    for (status, body, account, then) in rows {
        let (a, t, message) = effect(&http(status, &body));
        assert_eq!((a, t), (account, then), "HTTP {status} {body}");
        assert!(!message.contains("<html"), "a raw upstream body never reaches the client: {message}");
    }
}

#[test]
fn every_error_frame_the_provider_classifies() {
    let rows = [
        (
            json!({"type": "error", "status": 429, "error": {"type": "usage_limit_reached", "resets_at": 1_900_000_000}}),
            Cooldown,
            NextAccount,
        ),
        (json!({"type": "error", "status": 401, "error": {"message": "Unauthorized"}}), Untouched, SameAccount),
        (
            json!({"type": "error", "status": 400, "error": {"type": "invalid_request_error", "message": MODEL_REFUSAL}}),
            ExcludeModel,
            NextAccount,
        ),
        // A refusal of something the request asked for is not a model refusal.
        (
            json!({"type": "error", "status": 400, "error": {"type": "invalid_request_error", "message": "The 'web_search' tool is not supported with this model."}}),
            Untouched,
            Client(400, "invalid_request"),
        ),
        (
            json!({"type": "error", "status": 400, "error": {"code": "previous_response_not_found", "message": "Previous response with id 'resp_1' not found."}}),
            Untouched,
            Client(400, "previous_response_not_found"),
        ),
        (
            json!({"type": "error", "status": 400, "error": {"code": "invalid_value", "message": "Invalid 'input[0]'"}}),
            Untouched,
            Client(400, "invalid_value"),
        ),
        (
            json!({"type": "error", "status": 413, "error": {"message": "Message too large"}}),
            Untouched,
            Client(413, "request_too_large"),
        ),
        (json!({"type": "error", "status": 500, "error": {"type": "server_error"}}), Untouched, NextAccount),
        (json!({"type": "error", "error": {"message": "no status"}}), Untouched, NextAccount),
    ];
    for (value, account, then) in rows {
        let (a, t, _) = effect(&frame(value.clone()));
        assert_eq!((a, t), (account, then), "{value}");
    }
}

#[test]
fn every_close_before_the_first_event() {
    let close = |code: CloseCode| CloseFrame { code, reason: "".into() };
    let rows = [
        // 1009: the upstream refused the message as too big: the request's fault.
        (Some(close(CloseCode::Size)), Untouched, Client(413, "request_too_large")),
        (Some(close(CloseCode::Normal)), Untouched, Client(504, "upstream_timeout")),
        (Some(close(CloseCode::Away)), Untouched, Client(504, "upstream_timeout")),
        (Some(close(CloseCode::Error)), Untouched, Client(504, "upstream_timeout")),
        (None, Untouched, Client(504, "upstream_timeout")),
    ];
    for (frame, account, then) in rows {
        let (a, t, _) = effect(&classify_close(frame.as_ref()));
        assert_eq!((a, t), (account, then), "{frame:?}");
    }
}

#[test]
fn every_send_failure_on_an_upstream_socket() {
    use tungstenite::error::CapacityError;
    // Too big to send: the request's fault, nothing left the process.
    let too_long = tungstenite::Error::Capacity(CapacityError::MessageTooLong { size: 10, max_size: 5 });
    let full = tungstenite::Error::WriteBufferFull(Box::new(tungstenite::Message::text("x")));
    for error in [too_long, full] {
        let failure = classify_socket_send(&error).expect("classified");
        assert_eq!(failure.send_state, gateway_core::domain::SendState::NotSent);
        let (a, t, _) = effect(&failure);
        assert_eq!((a, t), (Untouched, Client(413, "request_too_large")), "{error}");
    }
    // A dead socket is not classified here: the provider retries on a fresh socket or uses HTTP.
    let broken = tungstenite::Error::Io(std::io::ErrorKind::BrokenPipe.into());
    assert!(classify_socket_send(&broken).is_none());
    assert!(classify_socket_send(&tungstenite::Error::AlreadyClosed).is_none());
}

#[test]
fn every_transport_failure_of_an_http_call() {
    let rows = [
        (SendError::NotSent("connection refused".to_owned()), Untouched, NextAccount),
        (SendError::TlsFailed("invalid peer certificate".to_owned()), Untouched, NextAccount),
        (SendError::NameNotResolved("no such host".to_owned()), Untouched, NextAccount),
        (SendError::ProxyFailed("proxy refused".to_owned()), Untouched, NextAccount),
        (SendError::LocalResources("too many open files".to_owned()), Untouched, Client(503, "gateway_overloaded")),
        (SendError::Ambiguous("reset after the write".to_owned()), Untouched, Client(504, "upstream_timeout")),
    ];
    for (error, account, then) in rows {
        let failure = classify_transport(&error);
        assert_ne!(failure.fault, Fault::UpstreamRejected);
        let (a, t, _) = effect(&failure);
        assert_eq!((a, t), (account, then), "{error:?}");
    }
}

#[test]
fn messages_passed_to_the_client_carry_no_account_identity() {
    let body = json!({"detail": "Invalid input for user alice@example.com on account 3f2b8c1e-1111-4222-8333-944445555666\u{7}"});
    let (_, then, message) = effect(&http(400, &body.to_string()));
    assert_eq!(then, Client(400, "invalid_request"));
    assert!(!message.contains("alice@example.com"), "{message}");
    assert!(!message.contains("3f2b8c1e-1111-4222-8333-944445555666"), "{message}");
    assert!(!message.contains('\u{7}'), "{message}");
    assert!(message.contains("Invalid input"), "{message}");
}

const CHALLENGE_PAGE: &str = "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>\
<script>window._cf_chl_opt={cvId: '3'};</script><script src=\"/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1\"></script></body></html>";

#[test]
fn edge_answers_are_told_apart_from_the_backend_s_own() {
    let html = [("content-type", "text/html; charset=UTF-8")];
    let challenge = [("content-type", "text/html; charset=UTF-8"), ("cf-mitigated", "challenge")];
    let rows: Vec<(AttemptFailure, Fault)> = vec![
        (with_headers(403, &challenge, CHALLENGE_PAGE), Fault::CloudflareChallenge),
        (with_headers(503, &challenge, CHALLENGE_PAGE), Fault::CloudflareChallenge),
        // The page alone (no header) is enough.
        (with_headers(403, &html, CHALLENGE_PAGE), Fault::CloudflareChallenge),
        (with_headers(429, &challenge, CHALLENGE_PAGE), Fault::CloudflareChallenge),
        (with_headers(403, &html, "<html><title>Access denied | Error 1020</title></html>"), Fault::EdgeBlocked),
        (with_headers(429, &html, "<html>Error 1015: You are being rate limited</html>"), Fault::EdgeBlocked),
        (
            http(403, &json!({"error": {"code": "unsupported_country_region_territory"}}).to_string()),
            Fault::EdgeBlocked,
        ),
        (with_headers(502, &html, "<html>Bad gateway</html>"), Fault::EdgeErrorPage),
        (with_headers(522, &html, "<html>Connection timed out</html>"), Fault::EdgeErrorPage),
        (with_headers(503, &[("content-type", "text/plain")], "upstream connect error"), Fault::EdgeErrorPage),
        (with_headers(500, &[], ""), Fault::EdgeErrorPage),
        (with_headers(413, &html, "<html>413 Request Entity Too Large</html>"), Fault::EdgeRequestTooLarge),
        // A 401 is the credential's whatever its body is.
        (with_headers(401, &html, "<html>Unauthorized</html>"), Fault::UpstreamUnauthorized),
    ];
    for (failure, fault) in rows {
        assert_eq!(failure.fault, fault, "{failure:?}");
        assert!(failure.quota.is_none(), "an edge answer carries no quota facts");
    }
    let (account, then, _) = effect(&with_headers(403, &challenge, CHALLENGE_PAGE));
    assert_eq!((account, then), (Cooldown, NextAccount), "a challenge cools briefly and moves on");
}

#[test]
fn a_429_with_retry_after_is_a_short_rate_limit_not_a_usage_limit() {
    let now = OffsetDateTime::now_utc();
    let body = json!({"error": {"type": "rate_limit_exceeded", "code": "rate_limit_exceeded"}}).to_string();
    let windows = [
        ("retry-after", "3"),
        ("x-codex-primary-used-percent", "12"),
        ("x-codex-primary-window-minutes", "300"),
        ("x-codex-primary-reset-after-seconds", "1740"),
    ];
    let failure = with_headers(429, &windows, &body);
    assert_eq!(failure.fault, Fault::UpstreamRateLimited);
    let wait = (failure.until.expect("deadline") - now).whole_seconds();
    assert!((2..=3).contains(&wait), "Retry-After 3 → {wait} s");
    let quota = failure.quota.expect("the windows are still read");
    assert_ne!(quota.state, gateway_core::domain::QuotaState::Exhausted, "a rate limit is no usage limit");

    let date = httpdate::fmt_http_date(std::time::SystemTime::now() + std::time::Duration::from_secs(120));
    let dated = with_headers(429, &[("retry-after", &date)], &body);
    let wait = (dated.until.expect("deadline") - now).whole_seconds();
    assert!((118..=120).contains(&wait), "an HTTP date → {wait} s");

    let neither = http(429, &body);
    assert_eq!(neither.fault, Fault::RateLimitedWithoutDeadline);
    assert!(neither.until.is_none());

    let usage = http(429, &json!({"error": {"type": "usage_limit_reached", "resets_in_seconds": 600}}).to_string());
    assert_eq!(usage.fault, Fault::UsageLimitReached);

    let overloaded =
        with_headers(503, &[("retry-after", "5")], &json!({"error": {"code": "server_is_overloaded"}}).to_string());
    assert_eq!(overloaded.fault, Fault::UpstreamOverloaded);
    assert!(overloaded.until.is_some());
}

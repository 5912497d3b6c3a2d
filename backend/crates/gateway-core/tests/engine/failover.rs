//! The failover decision over the fault table: every fault once, with what it does to the
//! account, what the request does next and what the provider circuit hears — written out here
//! independently of the table, so a change to a row fails until this expectation changes too.

use std::time::Duration;

use gateway_core::coordination::{AccountFeedback, CircuitOutcome};
use gateway_core::domain::SendState;
use gateway_core::engine::failover::{Circumstances, Next, circuit_outcome, cooldown_feedback, decide, grown};
use gateway_core::fault::{Blame, Fault, Surface};
use gateway_core::provider::AttemptFailure;
use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;

fn failure(fault: Fault, send_state: SendState) -> AttemptFailure {
    AttemptFailure::new(fault, send_state, "test")
}

fn at(now: OffsetDateTime) -> Circumstances<'static> {
    Circumstances { recovered: false, model: "m", now, repeats: 1 }
}

#[test]
fn unauthorized_recovers_once_then_cools_the_credential_for_ten_minutes() {
    let now = OffsetDateTime::now_utc();
    let f = failure(Fault::UpstreamUnauthorized, SendState::Sent);
    assert_eq!(decide(&f, &at(now)), Next::RecoverAndRetry);
    let again = decide(&f, &Circumstances { recovered: true, ..at(now) });
    let cooled = AccountFeedback::Cooldown { duration: Duration::from_secs(600), fault: Fault::CredentialRefused };
    assert_eq!(again, Next::NextAccount { feedback: Some(cooled), avoid_egress: false });
}

#[test]
fn a_usage_limit_cools_the_account_until_its_reset() {
    let now = OffsetDateTime::now_utc();
    let f = failure(Fault::UsageLimitReached, SendState::Sent).until(Some(now + time::Duration::seconds(7200)));
    let want = AccountFeedback::Cooldown { duration: Duration::from_secs(7200), fault: Fault::UsageLimitReached };
    assert_eq!(decide(&f, &at(now)), Next::NextAccount { feedback: Some(want), avoid_egress: false });
    // Without a reset time: 15 minutes, as an exhausted quota without a reset is retried.
    let unknown = failure(Fault::UsageLimitReached, SendState::Sent);
    assert_eq!(cooldown_duration(&unknown, now, 1), Some(Duration::from_secs(900)));
    // A reset a month away is bounded to a week.
    let far = failure(Fault::UsageLimitReached, SendState::Sent).until(Some(now + time::Duration::days(30)));
    assert_eq!(cooldown_duration(&far, now, 1), Some(Duration::from_secs(7 * 24 * 3600)));
}

#[test]
fn retry_after_bounds_a_rate_limit_and_an_overload() {
    let now = OffsetDateTime::now_utc();
    let three = failure(Fault::UpstreamRateLimited, SendState::Sent).until(Some(now + time::Duration::seconds(3)));
    assert_eq!(cooldown_duration(&three, now, 1), Some(Duration::from_secs(3)));
    // At most an hour, whatever the upstream asks.
    let day = failure(Fault::UpstreamRateLimited, SendState::Sent).until(Some(now + time::Duration::days(1)));
    assert_eq!(cooldown_duration(&day, now, 1), Some(Duration::from_secs(3600)));
    let overloaded = failure(Fault::UpstreamOverloaded, SendState::Sent).until(Some(now + time::Duration::seconds(20)));
    assert_eq!(cooldown_duration(&overloaded, now, 1), Some(Duration::from_secs(20)));
    // An overload without Retry-After blames no account.
    assert_eq!(cooldown_duration(&failure(Fault::UpstreamOverloaded, SendState::Sent), now, 1), None);
}

#[test]
fn challenges_cool_briefly_grow_on_repeats_and_prefer_another_egress_path() {
    let now = OffsetDateTime::now_utc();
    let f = failure(Fault::CloudflareChallenge, SendState::Sent);
    let steps: Vec<Option<Duration>> = (1..=8).map(|n| cooldown_duration(&f, now, n)).collect();
    let seconds = |s: u64| Some(Duration::from_secs(s));
    assert_eq!(
        steps,
        [seconds(15), seconds(30), seconds(60), seconds(120), seconds(240), seconds(480), seconds(600), seconds(600)]
    );
    let Next::NextAccount { avoid_egress, .. } = decide(&f, &at(now)) else { panic!("moves on") };
    assert!(avoid_egress);
    // A Retry-After longer than the step is honoured (up to the max).
    let told = f.clone().until(Some(now + time::Duration::seconds(90)));
    assert_eq!(cooldown_duration(&told, now, 1), seconds(90));
    assert_eq!(grown(Duration::from_secs(15), 40), Duration::from_secs(15 << 16), "no overflow");
}

#[test]
fn ambiguous_outcomes_are_never_replayed() {
    let now = OffsetDateTime::now_utc();
    for fault in [Fault::UpstreamAmbiguous, Fault::UpstreamHeadTimeout] {
        let f = failure(fault, SendState::Ambiguous);
        assert!(matches!(decide(&f, &at(now)), Next::Fail(e) if e.code == ErrorCode::UpstreamTimeout));
    }
    // Even a retryable fault is not replayed once the watermark says ambiguous.
    let f = failure(Fault::UpstreamUnavailable, SendState::Ambiguous);
    assert!(matches!(decide(&f, &at(now)), Next::Fail(e) if e.code == ErrorCode::UpstreamTimeout));
}

#[test]
fn a_refused_request_reaches_the_client_as_it_is() {
    let error = ApiError::new(ErrorCode::InvalidRequest, "bad input");
    let f = AttemptFailure::rejected(error.clone(), SendState::Sent, "test");
    assert_eq!(decide(&f, &at(OffsetDateTime::now_utc())), Next::Fail(error));
}

fn cooldown_duration(failure: &AttemptFailure, now: OffsetDateTime, repeats: u32) -> Option<Duration> {
    let at = Circumstances { repeats, ..at(now) };
    match cooldown_feedback(failure.fault, failure, &at) {
        Some(AccountFeedback::Cooldown { duration, fault }) => {
            assert_eq!(fault, failure.fault, "the cooldown names its fault");
            Some(duration)
        }
        _ => None,
    }
}

/// What a failure does to the account that served the attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Account {
    Untouched,
    Cooldown(u64),
    ExcludeModel,
}

/// What the request does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Then {
    SameAccount,
    NextAccount,
    /// Another account, preferring another egress path.
    OtherPath,
    /// Stop: the client gets this HTTP status.
    Client(u16),
}

/// What a failure tells the provider circuit when it reached the upstream (`Sent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Circuit {
    Failure,
    Up,
    Nothing,
}

use Account::*;
use Circuit::{Failure, Nothing, Up};
use Then::*;

/// Every fault once (the `match` fails to compile when a fault is added without a row), for a
/// first occurrence without an upstream deadline.
fn expected(fault: Fault) -> (Account, Then, Circuit) {
    match fault {
        Fault::UpstreamRejected => (Untouched, Client(400), Up),
        Fault::EdgeRequestTooLarge => (Untouched, Client(413), Up),
        Fault::UsageLimitReached => (Cooldown(900), NextAccount, Up),
        Fault::UpstreamRateLimited => (Cooldown(60), NextAccount, Up),
        Fault::RateLimitedWithoutDeadline => (Cooldown(30), NextAccount, Up),
        Fault::PlanExcludesService => (Cooldown(1800), NextAccount, Up),
        Fault::UpstreamUnauthorized => (Untouched, SameAccount, Up),
        Fault::CredentialRefused => (Cooldown(600), NextAccount, Up),
        Fault::AccountDeactivated => (Cooldown(1800), NextAccount, Up),
        Fault::AccountUnusable => (Cooldown(1800), NextAccount, Up),
        Fault::ModelNotSupported => (ExcludeModel, NextAccount, Up),
        Fault::CredentialMalformed => (Cooldown(1800), NextAccount, Up),
        // The egress path's, not the account's nor the upstream's.
        Fault::CloudflareChallenge => (Cooldown(15), OtherPath, Nothing),
        Fault::EdgeBlocked => (Cooldown(15), OtherPath, Nothing),
        Fault::EgressProxyFailed => (Untouched, OtherPath, Nothing),
        // Infrastructure: another account may succeed; none is blamed; the circuit counts it.
        Fault::EdgeErrorPage => (Untouched, NextAccount, Failure),
        Fault::UpstreamUnavailable => (Untouched, NextAccount, Failure),
        Fault::UpstreamOverloaded => (Untouched, NextAccount, Failure),
        Fault::UpstreamConnectFailed => (Untouched, NextAccount, Failure),
        Fault::UpstreamTlsFailed => (Untouched, NextAccount, Failure),
        Fault::UpstreamDnsFailed => (Untouched, NextAccount, Failure),
        // May have been processed: never replayed, nobody blamed.
        Fault::UpstreamHeadTimeout => (Untouched, Client(504), Nothing),
        Fault::UpstreamAmbiguous => (Untouched, Client(504), Nothing),
        Fault::PreviousResponseNotFound => (Untouched, Client(400), Nothing),
        Fault::GatewayOverloaded => (Untouched, Client(503), Nothing),
        Fault::ClientVersionRejected => (Untouched, Client(502), Nothing),
        // Not decided here: after the commit, or at the token endpoint.
        Fault::StreamStalled | Fault::StreamBroken => (Untouched, Client(503), Nothing),
        Fault::TokenEndpointChallenge => (Untouched, Client(503), Nothing),
        Fault::TokenEndpointUnavailable => (Untouched, Client(503), Nothing),
        Fault::RefreshTokenRefused => (Untouched, Client(503), Nothing),
    }
}

fn effect(next: &Next) -> (Account, Then) {
    match next {
        Next::RecoverAndRetry => (Untouched, SameAccount),
        Next::NextAccount { feedback, avoid_egress } => {
            let then = if *avoid_egress { OtherPath } else { NextAccount };
            let account = match feedback {
                None => Untouched,
                Some(AccountFeedback::Cooldown { duration, .. }) => Cooldown(duration.as_secs()),
                Some(AccountFeedback::ExcludeModel { .. }) => ExcludeModel,
            };
            (account, then)
        }
        Next::Fail(error) => (Untouched, Client(error.status())),
    }
}

fn circuit(failure: &AttemptFailure) -> Circuit {
    match circuit_outcome(failure) {
        Some(CircuitOutcome::Failure) => Failure,
        Some(CircuitOutcome::Success) => Up,
        None => Nothing,
    }
}

#[test]
fn the_failover_decision_covers_every_fault() {
    let now = OffsetDateTime::now_utc();
    for fault in Fault::ALL.iter().copied() {
        let (account, then, on_circuit) = expected(fault);
        let sent = failure(fault, SendState::Sent);
        assert_eq!(effect(&decide(&sent, &at(now))), (account, then), "{fault}");
        assert_eq!(circuit(&sent), on_circuit, "{fault}");
        // Nothing sent: only the rows of an unreachable upstream tell the circuit anything.
        let not_sent = failure(fault, SendState::NotSent);
        let expected_circuit = if on_circuit == Failure { Failure } else { Nothing };
        assert_eq!(circuit(&not_sent), expected_circuit, "{fault} not sent");
        // Whatever the fault, an outcome that may have been processed is never replayed and
        // blames no account.
        let ambiguous = failure(fault, SendState::Ambiguous);
        let (account, then) = effect(&decide(&ambiguous, &at(now)));
        assert_eq!(account, Untouched, "{fault} ambiguous");
        assert!(matches!(then, Client(_)), "{fault} ambiguous: {then:?}");
    }
}

#[test]
fn the_fault_table_has_one_row_per_fault_and_keeps_its_invariants() {
    use gateway_core::fault::table::ROWS;
    assert_eq!(ROWS.len(), Fault::ALL.len());
    for fault in Fault::ALL.iter().copied() {
        let row = fault.row();
        assert_eq!(row.fault, fault);
        assert_eq!(ROWS.iter().filter(|r| r.fault == fault).count(), 1, "{fault}");
        // Only explicit verdicts of the upstream blame the account; a fault nobody or the
        // egress is blamed for never cools the account for long.
        if matches!(row.blame, Blame::Nobody | Blame::Egress | Blame::Provider | Blame::Request) {
            let (account, _, _) = expected(fault);
            assert!(
                matches!(account, Untouched | Cooldown(0..=15)),
                "{fault} blames {} and must not write the account off",
                row.blame.as_str()
            );
        }
        if row.surface == Surface::Stream {
            assert_eq!(row.next, gateway_core::fault::Next::AfterCommit, "{fault}");
        }
    }
}

/// Stored rows keep these spellings: a fault's code is never renamed.
#[test]
fn faults_keep_the_codes_stored_before_the_table() {
    let stored = [
        (Fault::UpstreamUnauthorized, "upstream_unauthorized"),
        (Fault::UpstreamRateLimited, "upstream_rate_limited"),
        (Fault::ModelNotSupported, "model_not_supported"),
        (Fault::AccountUnusable, "account_unusable"),
        (Fault::UpstreamUnavailable, "upstream_unavailable"),
        (Fault::UpstreamConnectFailed, "upstream_connect_failed"),
        (Fault::EgressProxyFailed, "egress_proxy_failed"),
        (Fault::UpstreamAmbiguous, "upstream_ambiguous"),
        (Fault::UpstreamRejected, "upstream_rejected"),
        (Fault::GatewayOverloaded, "gateway_overloaded"),
        (Fault::ClientVersionRejected, "client_version_rejected"),
        (Fault::PreviousResponseNotFound, "previous_response_not_found"),
    ];
    for (fault, code) in stored {
        assert_eq!(failure(fault, SendState::Sent).code(), code);
        assert_eq!(code.parse::<Fault>(), Ok(fault));
    }
}

/// `docs/reliability.md` ("Upstream faults") has one row per fault, with the table's blame.
#[test]
fn fault_table_matches_the_documentation() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../docs/reliability.md");
    let doc = std::fs::read_to_string(path).expect("docs/reliability.md");
    let section = doc.split("## Upstream faults").nth(1).expect("the section").split("\n## ").next().expect("body");
    let rows: Vec<Vec<&str>> = section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| line.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), Fault::ALL.len(), "one documented row per fault");
    for fault in Fault::ALL.iter().copied() {
        let code = format!("`{}`", fault.as_str());
        let row = rows.iter().find(|row| row[0] == code).unwrap_or_else(|| panic!("{fault} is documented"));
        assert_eq!(row[2], fault.row().blame.as_str(), "{fault}: the documented blame");
    }
}

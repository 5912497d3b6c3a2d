//! The drill's judgement: closes against their deadlines and the clients against the bounds.

use std::time::Duration;

use loadgen::attack::{AttackKind, Closed};
use loadgen::drill::{self, AttackSummary};

fn args(extra: &[&str]) -> drill::DrillArgs {
    let base = ["drill", "http://127.0.0.1:9/v1/responses", "--key", "k", "-d", "{}", "--header-deadline", "2s"];
    drill::parse(base.iter().chain(extra).map(std::ffi::OsString::from)).expect("valid arguments")
}

fn closed(kind: AttackKind, lifetime_ms: Option<u64>, status: Option<u16>) -> Closed {
    Closed { kind, lifetime: lifetime_ms.map(Duration::from_millis), connect_failed: false, status, bytes_sent: 10 }
}

fn of(summaries: &[AttackSummary], kind: AttackKind) -> &AttackSummary {
    summaries.iter().find(|s| s.kind == kind).expect("a summary per kind")
}

#[test]
fn closes_are_judged_against_the_deadline_of_their_kind() {
    let args = args(&["--slack", "1s"]);
    let closed = [
        closed(AttackKind::Idle, Some(2010), None),
        closed(AttackKind::Idle, Some(1995), None),
        closed(AttackKind::Idle, Some(1500), None),
        closed(AttackKind::Idle, Some(3500), None),
        closed(AttackKind::Idle, None, None),
        closed(AttackKind::SlowHeader, Some(2900), None),
        closed(AttackKind::Upload, Some(40), Some(401)),
        closed(AttackKind::Upload, Some(1500), Some(401)),
    ];
    let summaries = drill::verdict::summarise(&args, &closed);
    let idle = of(&summaries, AttackKind::Idle);
    assert_eq!(
        (idle.connections, idle.closed_in_time, idle.closed_early, idle.closed_late, idle.not_closed),
        (5, 2, 1, 1, 1)
    );
    assert_eq!(of(&summaries, AttackKind::SlowHeader).closed_in_time, 1);
    let upload = of(&summaries, AttackKind::Upload);
    assert_eq!((upload.closed_in_time, upload.closed_late), (1, 1), "an upload must be closed at once");
    assert_eq!(upload.answers.get("401"), Some(&2));
}

#[test]
fn the_arguments_have_the_long_form_defaults() {
    let args = args(&[]);
    assert_eq!((args.clients, args.slow_headers, args.uploads, args.idle), (16, 1000, 100, 3000));
    assert_eq!(args.upload_bytes, 30 * 1024 * 1024);
    assert_eq!(args.max_added_p99, Duration::from_millis(50));
    assert!(drill::parse(["drill", "http://x/v1/responses", "--key", "k", "-d", "{}"].map(Into::into)).is_err());
}

//! The in-place SSE event scanner.

use loadgen::sse::{EventScanner, Scan};

fn failure_names() -> Vec<String> {
    vec!["response.failed".to_owned(), "error".to_owned()]
}

fn scan_all(scanner: &mut EventScanner, chunks: &[&[u8]]) -> Scan {
    chunks.iter().fold(Scan::default(), |total, chunk| {
        let scan = scanner.feed(chunk);
        Scan { events: total.events + scan.events, failed: total.failed + scan.failed }
    })
}

const STREAM: &str = "event: response.created\ndata: {\"a\":1}\n\n: keep-alive\n\nevent: response.output_text.delta\ndata: {}\n\ndata: only data\n\nevent: response.failed\ndata: {}\n\n";

#[test]
fn counts_events_and_failures_but_not_comments() {
    let mut scanner = EventScanner::new(&failure_names());
    assert_eq!(scanner.feed(STREAM.as_bytes()), Scan { events: 4, failed: 1 });
    assert!(!scanner.has_partial_event());
}

#[test]
fn any_split_gives_the_same_count() {
    let bytes = STREAM.as_bytes();
    for split in 0..bytes.len() {
        let mut scanner = EventScanner::new(&failure_names());
        let (a, b) = bytes.split_at(split);
        assert_eq!(scan_all(&mut scanner, &[a, b]), Scan { events: 4, failed: 1 }, "split at {split}");
    }
    let mut scanner = EventScanner::new(&failure_names());
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(scan_all(&mut scanner, &singles), Scan { events: 4, failed: 1 });
}

#[test]
fn crlf_and_cr_line_endings() {
    let crlf = STREAM.replace('\n', "\r\n");
    let cr = STREAM.replace('\n', "\r");
    for text in [crlf, cr] {
        let bytes = text.as_bytes();
        for split in 0..bytes.len() {
            let mut scanner = EventScanner::new(&failure_names());
            let (a, b) = bytes.split_at(split);
            assert_eq!(scan_all(&mut scanner, &[a, b]), Scan { events: 4, failed: 1 }, "{text:?} split at {split}");
        }
    }
}

#[test]
fn partial_events_are_pending_until_the_blank_line() {
    let mut scanner = EventScanner::new(&failure_names());
    assert_eq!(scanner.feed(b"event: error\ndata: {}\n").events, 0);
    assert!(scanner.has_partial_event());
    assert_eq!(scanner.feed(b"\n"), Scan { events: 1, failed: 1 });
    assert!(!scanner.has_partial_event());
    scanner.feed(b"data: cut");
    scanner.reset();
    assert!(!scanner.has_partial_event());
}

#[test]
fn long_lines_and_similar_names_do_not_match() {
    let long = format!("data: {}\n\nevent: response.failed.not\n\nevent:error\n\n", "y".repeat(10_000));
    let mut scanner = EventScanner::new(&failure_names());
    assert_eq!(scanner.feed(long.as_bytes()), Scan { events: 3, failed: 1 });
}

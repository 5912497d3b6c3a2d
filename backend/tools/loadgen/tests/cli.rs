//! Command-line parsing and validation.

use std::time::Duration;

use loadgen::cli::parse_duration;
use loadgen::config::{DEFAULT_REQUESTS, Mode};
use loadgen::config_from_args;

#[test]
fn durations_parse_with_units() {
    assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
    assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
    assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
    assert_eq!(parse_duration("100us"), Ok(Duration::from_micros(100)));
    assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
    assert!(parse_duration("3 fortnights").is_err());
    assert!(parse_duration("fast").is_err());
}

#[test]
fn defaults_and_derived_headers() {
    let config = config_from_args(["loadgen", "sse", "http://127.0.0.1:9/v1/responses", "-d", "{}"]).expect("valid");
    assert_eq!(config.mode, Mode::Sse);
    assert_eq!(config.method, http::Method::POST);
    assert_eq!(config.load.requests, Some(DEFAULT_REQUESTS));
    assert_eq!(config.load.concurrency, 1);
    assert_eq!(config.headers["content-type"], "application/json");
    assert_eq!(config.headers["accept"], "text/event-stream");
    assert_eq!(config.target.path, "/v1/responses");
    assert_eq!(config.target.authority, "127.0.0.1:9");
    assert_eq!(config.failure_events, ["response.failed", "error"]);

    let config = config_from_args(["loadgen", "json", "http://127.0.0.1:9/x?y=1", "-z", "5s"]).expect("valid");
    assert_eq!(config.method, http::Method::GET);
    assert_eq!(config.load.requests, None, "a duration alone sets no count");
    assert_eq!(config.target.path, "/x?y=1");
}

#[test]
fn headers_and_body_files() {
    let path = std::env::temp_dir().join(format!("loadgen-body-{}.json", std::process::id()));
    std::fs::write(&path, br#"{"model":"m"}"#).expect("write body");
    let at_path = format!("@{}", path.display());
    let config = config_from_args([
        "loadgen",
        "json",
        "http://127.0.0.1:9/",
        "-d",
        &at_path,
        "-H",
        "Authorization: Bearer sk-1",
        "-H",
        "x-multi: a",
        "-H",
        "x-multi: b",
        "-H",
        "content-type: application/x-custom",
    ])
    .expect("valid");
    assert_eq!(config.body.as_ref(), br#"{"model":"m"}"#);
    assert_eq!(config.headers["authorization"], "Bearer sk-1");
    assert_eq!(config.headers.get_all("x-multi").iter().count(), 2);
    assert_eq!(config.headers["content-type"], "application/x-custom", "a given content type is kept");

    let from_file =
        config_from_args(["loadgen", "json", "http://127.0.0.1:9/", "--body-file", &path.to_string_lossy()])
            .expect("ok");
    assert_eq!(from_file.body, config.body);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn bad_arguments_are_rejected() {
    let bad: [&[&str]; 7] = [
        &["loadgen", "sse", "https://127.0.0.1:9/"],
        &["loadgen", "ws", "http://127.0.0.1:9/"],
        &["loadgen", "sse", "ws://127.0.0.1:9/"],
        &["loadgen", "sse", "http://127.0.0.1:9/", "-H", "no colon"],
        &["loadgen", "sse", "http://127.0.0.1:9/", "-c", "0"],
        &["loadgen", "sse", "http://127.0.0.1:9/", "--rate", "0"],
        &["loadgen", "sse", "http://127.0.0.1:9/", "-d", "x", "--body-file", "y"],
    ];
    for args in bad {
        assert!(config_from_args(args.iter().copied()).is_err(), "accepted {args:?}");
    }
}

//! Parsing proxy URLs and keeping their secrets out of `Debug` and errors.

use gateway_transport::{ProxyKind, ProxyUrl};

#[test]
fn parses_both_kinds_with_default_ports() {
    let http = ProxyUrl::parse("http://proxy.example").expect("http");
    assert_eq!((http.kind(), http.host(), http.port()), (ProxyKind::HttpConnect, "proxy.example", 80));
    let socks = ProxyUrl::parse("socks5h://10.0.0.1").expect("socks");
    assert_eq!((socks.kind(), socks.port()), (ProxyKind::Socks5, 1080));
    assert_eq!(socks.redacted(), "socks5://10.0.0.1:1080");
}

#[test]
fn credentials_never_show() {
    let proxy = ProxyUrl::parse("http://alice:hunter2@proxy.example:3128").expect("proxy");
    assert!(proxy.has_credentials());
    let shown = format!("{proxy:?} {}", proxy.redacted());
    assert!(!shown.contains("hunter2") && !shown.contains("alice"), "{shown}");
    assert_eq!(proxy.redacted(), "http://proxy.example:3128");
}

#[test]
fn refuses_other_schemes_without_echoing_the_input() {
    for raw in ["https://u:topsecret@proxy:1", "ftp://proxy", "not a url", "http://u:topsecret@proxy:1/path"] {
        let error = ProxyUrl::parse(raw).expect_err("refused").to_string();
        assert!(!error.contains("topsecret"), "{error}");
    }
}

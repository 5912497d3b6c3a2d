//! The client address behind proxies: the right-most `X-Forwarded-For` entry that is not a
//! trusted proxy, and only when the peer itself is one.

use std::net::IpAddr;

use gateway_admin::auth::TrustedProxies;
use ipnet::IpNet;

fn proxies(enabled: bool) -> TrustedProxies {
    let networks: Vec<IpNet> =
        ["127.0.0.0/8", "::1/128", "10.0.0.0/8"].iter().map(|n| n.parse().expect("network")).collect();
    TrustedProxies::new(enabled, networks)
}

fn ip(text: &str) -> Option<IpAddr> {
    Some(text.parse().expect("ip"))
}

#[test]
fn the_client_is_the_rightmost_entry_that_is_not_a_trusted_proxy() {
    let p = proxies(true);
    let peer = ip("10.0.0.9");
    let cases: [(&[&str], &str); 9] = [
        (&[], "10.0.0.9"),
        (&["203.0.113.9"], "203.0.113.9"),
        (&["198.51.100.1, 203.0.113.9"], "203.0.113.9"),
        (&["198.51.100.1, 203.0.113.9, 10.0.0.5"], "203.0.113.9"),
        (&["198.51.100.1", "203.0.113.9, 10.0.0.5"], "203.0.113.9"),
        (&["10.0.0.1, 10.0.0.2"], "10.0.0.1"),
        (&[" \"203.0.113.9:4711\" , 10.0.0.5"], "203.0.113.9"),
        (&["[2001:db8::1]:443"], "2001:db8::1"),
        (&["1.2.3.4, [2001:db8::2], ::1"], "2001:db8::2"),
    ];
    for (forwarded, client) in cases {
        assert_eq!(p.client_address(peer, forwarded).as_deref(), Some(client), "{forwarded:?}");
    }
    // An entry a trusted proxy wrote that is no address is the client's name, bounded.
    assert_eq!(p.client_address(peer, &["1.2.3.4, unknown, 10.0.0.5"]).as_deref(), Some("unknown"));
    let long = "x".repeat(100);
    assert_eq!(p.client_address(peer, &[&long]).map(|a| a.len()), Some(64));
}

#[test]
fn forwarded_headers_count_only_from_a_trusted_peer_with_the_proxy_enabled() {
    let forwarded = ["203.0.113.9"];
    assert_eq!(proxies(true).client_address(ip("198.51.100.7"), &forwarded).as_deref(), Some("198.51.100.7"));
    assert_eq!(proxies(false).client_address(ip("10.0.0.9"), &forwarded).as_deref(), Some("10.0.0.9"));
    assert_eq!(proxies(true).client_address(None, &forwarded), None);
    assert!(!proxies(false).trusts_peer(ip("127.0.0.1")));
    assert!(!proxies(true).trusts_peer(ip("192.0.2.1")));
    // An IPv4 peer on a dual-stack socket is written IPv4-mapped; it is the same address.
    let mapped = ip("::ffff:127.0.0.1");
    assert!(proxies(true).trusts_peer(mapped));
    assert_eq!(proxies(true).client_address(mapped, &forwarded).as_deref(), Some("203.0.113.9"));
    assert_eq!(proxies(false).client_address(mapped, &forwarded).as_deref(), Some("127.0.0.1"));
}

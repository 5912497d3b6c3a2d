//! The SSRF guard for admin-set URLs: the address policy over every form an address can be
//! written in (dotted, decimal, hex, octal and mixed IPv4 literals, IPv6 and its IPv4-embedding
//! forms), the URL rules (scheme, credentials) and resolution through the port (every resolved
//! address checked, failures and slow resolvers refused).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gateway_admin::ports::{HostResolver, ResolveError};
use gateway_admin::url_guard::{AddressClass, UrlGuard, UrlPolicy, UrlRefusal, address_refused, classify};

/// A resolver answering from a table; unknown names do not resolve.
#[derive(Default)]
struct TableResolver {
    names: HashMap<String, Vec<IpAddr>>,
}

impl TableResolver {
    fn with(names: &[(&str, &[&str])]) -> Self {
        let names = names
            .iter()
            .map(|(name, ips)| ((*name).to_owned(), ips.iter().map(|ip| ip.parse().expect("ip")).collect()))
            .collect();
        Self { names }
    }
}

#[async_trait]
impl HostResolver for TableResolver {
    async fn resolve(&self, host: &str, _port: u16) -> Result<Vec<IpAddr>, ResolveError> {
        self.names.get(host).cloned().ok_or_else(|| ResolveError("no such host".to_owned()))
    }
}

fn guard(resolver: TableResolver, allow_private: bool) -> UrlGuard {
    UrlGuard::new(Arc::new(resolver), UrlPolicy { allow_private })
}

fn strict() -> UrlGuard {
    guard(TableResolver::default(), false)
}

#[test]
fn every_refused_class_is_recognised_and_public_unicast_is_not() {
    let table: &[(&str, Option<AddressClass>)] = &[
        ("127.0.0.1", Some(AddressClass::Loopback)),
        ("127.255.255.254", Some(AddressClass::Loopback)),
        ("::1", Some(AddressClass::Loopback)),
        ("10.1.2.3", Some(AddressClass::Private)),
        ("172.16.0.1", Some(AddressClass::Private)),
        ("172.31.255.255", Some(AddressClass::Private)),
        ("192.168.0.10", Some(AddressClass::Private)),
        ("169.254.1.1", Some(AddressClass::LinkLocal)),
        ("fe80::1", Some(AddressClass::LinkLocal)),
        ("100.64.0.1", Some(AddressClass::SharedAddressSpace)),
        ("100.127.255.254", Some(AddressClass::SharedAddressSpace)),
        ("fc00::1", Some(AddressClass::UniqueLocal)),
        ("fd12:3456::1", Some(AddressClass::UniqueLocal)),
        ("169.254.169.254", Some(AddressClass::CloudMetadata)),
        ("169.254.170.2", Some(AddressClass::CloudMetadata)),
        ("100.100.100.200", Some(AddressClass::CloudMetadata)),
        ("fd00:ec2::254", Some(AddressClass::CloudMetadata)),
        ("0.0.0.0", Some(AddressClass::Unspecified)),
        ("0.1.2.3", Some(AddressClass::Unspecified)),
        ("::", Some(AddressClass::Unspecified)),
        ("224.0.0.1", Some(AddressClass::NotUnicast)),
        ("255.255.255.255", Some(AddressClass::NotUnicast)),
        ("240.0.0.1", Some(AddressClass::NotUnicast)),
        ("ff02::1", Some(AddressClass::NotUnicast)),
        // IPv4 embedded in IPv6: mapped, compatible, NAT64, 6to4, Teredo (client inverted).
        ("::ffff:127.0.0.1", Some(AddressClass::Loopback)),
        ("::ffff:169.254.169.254", Some(AddressClass::CloudMetadata)),
        ("::ffff:10.0.0.1", Some(AddressClass::Private)),
        ("::127.0.0.1", Some(AddressClass::Loopback)),
        ("64:ff9b::a00:1", Some(AddressClass::Private)),
        ("2002:7f00:1::1", Some(AddressClass::Loopback)),
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", Some(AddressClass::Private)),
        // Public unicast.
        ("8.8.8.8", None),
        ("203.0.113.10", None),
        ("172.32.0.1", None),
        ("100.128.0.1", None),
        ("169.253.255.255", None),
        ("::ffff:8.8.8.8", None),
        ("2001:4860:4860::8888", None),
        ("2002:808:808::1", None),
    ];
    for (text, expected) in table {
        let ip: IpAddr = text.parse().expect("address");
        assert_eq!(classify(ip), *expected, "{text}");
    }
}

#[test]
fn allowing_private_urls_never_allows_metadata_or_unspecified_addresses() {
    let allow = UrlPolicy { allow_private: true };
    let strict = UrlPolicy { allow_private: false };
    for text in ["127.0.0.1", "10.0.0.1", "192.168.1.1", "169.254.1.1", "100.64.0.1", "fd12::1", "fe80::1", "::1"] {
        let ip: IpAddr = text.parse().expect("address");
        assert!(address_refused(ip, strict).is_some(), "{text} refused by default");
        assert_eq!(address_refused(ip, allow), None, "{text} allowed with allow_private_urls");
    }
    for text in ["169.254.169.254", "fd00:ec2::254", "::ffff:169.254.169.254", "0.0.0.0", "::", "224.0.0.1"] {
        let ip: IpAddr = text.parse().expect("address");
        assert!(address_refused(ip, allow).is_some(), "{text} refused even with allow_private_urls");
    }
}

/// Every way a URL host can spell an IPv4 address (the WHATWG URL parser accepts them all, and
/// so do many resolvers): dotted, one 32-bit number, hex, octal, and shortened mixed forms.
fn spellings(ip: Ipv4Addr) -> Vec<String> {
    let [a, b, c, d] = ip.octets();
    let n = u32::from(ip);
    let low16 = u32::from(c) << 8 | u32::from(d);
    let low24 = u32::from(b) << 16 | low16;
    vec![
        format!("{a}.{b}.{c}.{d}"),
        format!("{n}"),
        format!("0x{n:x}"),
        format!("0x{n:08X}"),
        format!("0{n:o}"),
        format!("0x{a:x}.0x{b:x}.0x{c:x}.0x{d:x}"),
        format!("0{a:o}.0{b:o}.0{c:o}.0{d:o}"),
        format!("{a}.{low24}"),
        format!("{a}.{b}.{low16}"),
        format!("0x{a:x}.{b}.0{c:o}.{d}"),
        format!("{a}.{b}.{c}.{d}."),
        format!("[::ffff:{a}.{b}.{c}.{d}]"),
        format!("[::ffff:{:x}:{:x}]", n >> 16, n & 0xffff),
    ]
}

/// A deterministic pseudo-random address inside `base/prefix`.
fn inside(rng: &mut fastrand::Rng, base: Ipv4Addr, prefix: u32) -> Ipv4Addr {
    let host_bits = 32 - prefix;
    let mask = if host_bits == 32 { u32::MAX } else { (1u32 << host_bits) - 1 };
    Ipv4Addr::from((u32::from(base) & !mask) | (rng.u32(..) & mask))
}

#[tokio::test]
async fn every_spelling_of_a_refused_ipv4_address_is_refused() {
    let guard = strict();
    let mut rng = fastrand::Rng::with_seed(0x5eed_0012);
    let ranges: [(&str, u32); 8] = [
        ("127.0.0.0", 8),
        ("10.0.0.0", 8),
        ("172.16.0.0", 12),
        ("192.168.0.0", 16),
        ("169.254.0.0", 16),
        ("100.64.0.0", 10),
        ("0.0.0.0", 8),
        ("169.254.169.254", 32),
    ];
    for (base, prefix) in ranges {
        for _ in 0..25 {
            let ip = inside(&mut rng, base.parse().expect("base"), prefix);
            for host in spellings(ip) {
                let url = format!("https://{host}:9000/bucket");
                let refused = guard.check(&url).await;
                assert!(matches!(refused, Err(UrlRefusal::Address(_))), "{url} ({ip}) must be refused: {refused:?}");
            }
        }
    }
}

#[tokio::test]
async fn public_addresses_pass_in_every_spelling() {
    let guard = strict();
    let mut rng = fastrand::Rng::with_seed(0x5eed_0013);
    let mut checked = 0;
    while checked < 200 {
        let ip = Ipv4Addr::from(rng.u32(..));
        if classify(IpAddr::V4(ip)).is_some() {
            continue;
        }
        for host in spellings(ip) {
            let url = format!("https://{host}/");
            assert_eq!(guard.check(&url).await, Ok(()), "{url} ({ip}) is public");
        }
        checked += 1;
    }
}

#[tokio::test]
async fn ipv6_literals_are_checked_with_their_embedded_ipv4() {
    let guard = strict();
    for host in ["[::1]", "[::ffff:7f00:1]", "[fd00:ec2::254]", "[fe80::1%25eth0]", "[64:ff9b::7f00:1]", "[::]"] {
        let url = format!("https://{host}/");
        assert!(guard.check(&url).await.is_err(), "{url} must be refused");
    }
    assert_eq!(guard.check("https://[2001:4860:4860::8888]:443/").await, Ok(()));
    let mut rng = fastrand::Rng::with_seed(0x5eed_0014);
    for _ in 0..100 {
        let ula = Ipv6Addr::from(0xfc00u128 << 112 | (rng.u128(..) >> 7));
        assert!(guard.check(&format!("https://[{ula}]/")).await.is_err(), "{ula} is unique-local");
    }
}

#[tokio::test]
async fn names_are_resolved_and_every_address_must_pass() {
    let resolver = TableResolver::with(&[
        ("s3.example.com", &["52.216.1.2", "2600:1f18::1"]),
        ("localhost", &["127.0.0.1", "::1"]),
        ("internal.example.com", &["10.20.30.40"]),
        ("rebind.example.com", &["52.216.1.2", "169.254.169.254"]),
    ]);
    let guard = guard(resolver, false);
    assert_eq!(guard.check("https://s3.example.com").await, Ok(()));
    assert_eq!(guard.check("https://localhost:9000").await, Err(UrlRefusal::Address(AddressClass::Loopback)));
    assert_eq!(guard.check("https://internal.example.com").await, Err(UrlRefusal::Address(AddressClass::Private)));
    assert_eq!(guard.check("https://rebind.example.com").await, Err(UrlRefusal::Address(AddressClass::CloudMetadata)));
    assert_eq!(guard.check("https://nowhere.example.com").await, Err(UrlRefusal::Unresolvable));
}

/// A resolver that never answers.
struct SilentResolver;

#[async_trait]
impl HostResolver for SilentResolver {
    async fn resolve(&self, _host: &str, _port: u16) -> Result<Vec<IpAddr>, ResolveError> {
        std::future::pending().await
    }
}

#[tokio::test]
async fn a_resolver_that_does_not_answer_in_time_is_a_refusal() {
    let guard = UrlGuard::new(Arc::new(SilentResolver), UrlPolicy { allow_private: false })
        .with_resolve_timeout(Duration::from_millis(20));
    assert_eq!(guard.check("https://slow.example.com").await, Err(UrlRefusal::ResolveTimeout));
}

#[tokio::test]
async fn the_url_itself_must_be_https_without_credentials() {
    let guard = strict();
    for (url, expected) in [
        ("not a url", UrlRefusal::Malformed),
        ("ftp://203.0.113.10/", UrlRefusal::Scheme),
        ("file:///etc/passwd", UrlRefusal::Scheme),
        ("https://user:hunter2-secret@203.0.113.10/", UrlRefusal::Credentials),
        ("https://AKIAEXAMPLE@203.0.113.10/", UrlRefusal::Credentials),
        ("http://203.0.113.10/", UrlRefusal::PlainHttp),
        ("https://1.2.3.4.5/", UrlRefusal::Malformed),
    ] {
        let refused = guard.check(url).await;
        assert_eq!(refused, Err(expected.clone()), "{url}");
        let message = expected.to_string();
        assert!(!message.contains("hunter2") && !message.contains("AKIA") && !message.contains("203.0"), "{message}");
    }
}

#[tokio::test]
async fn plain_http_is_accepted_only_where_private_urls_are_allowed() {
    let resolver = TableResolver::with(&[("minio", &["10.0.0.7"])]);
    let guard = guard(resolver, true);
    assert_eq!(guard.check("http://minio:9000").await, Ok(()));
    assert_eq!(guard.check("http://127.0.0.1:9000").await, Ok(()));
    assert_eq!(guard.check("http://203.0.113.10").await, Err(UrlRefusal::PlainHttp));
    assert_eq!(guard.check("https://203.0.113.10").await, Ok(()));
    assert_eq!(guard.check("http://169.254.169.254").await, Err(UrlRefusal::Address(AddressClass::CloudMetadata)));
}

//! Egress proxy URLs as the admin API takes them (decision 0243): the two proxy schemes with
//! their default ports, user info kept in the sealed URL and out of the shown one, the shape
//! rules, and the SSRF guard's address policy on the host (private networks only when allowed).
//! No message repeats the URL.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use async_trait::async_trait;
use gateway_admin::AdminError;
use gateway_admin::egress_proxies::{check_proxy, parse_proxy};
use gateway_admin::ports::{HostResolver, ResolveError};
use gateway_admin::url_guard::{UrlGuard, UrlPolicy};

struct Table(HashMap<&'static str, IpAddr>);

#[async_trait]
impl HostResolver for Table {
    async fn resolve(&self, host: &str, _port: u16) -> Result<Vec<IpAddr>, ResolveError> {
        self.0.get(host).map(|ip| vec![*ip]).ok_or_else(|| ResolveError("no such host".to_owned()))
    }
}

fn guard(allow_private: bool) -> UrlGuard {
    let names = HashMap::from([
        ("proxy.example", "203.0.113.7".parse().expect("ip")),
        ("proxy.internal", "10.1.2.3".parse().expect("ip")),
        ("metadata.internal", "169.254.169.254".parse().expect("ip")),
    ]);
    UrlGuard::new(Arc::new(Table(names)), UrlPolicy { allow_private })
}

fn message(error: AdminError) -> String {
    match error {
        AdminError::Invalid { field, message } => format!("{field}: {message}"),
        other => format!("unexpected {other:?}"),
    }
}

#[test]
fn both_schemes_parse_with_their_default_ports_and_hidden_user_info() {
    let cases = [
        ("http://proxy.example", "http://proxy.example:80", false),
        ("http://alice:s3cret@proxy.example:3128/", "http://proxy.example:3128", true),
        ("socks5://proxy.example", "socks5://proxy.example:1080", false),
        ("  socks5h://bob:pw@10.0.0.1:9050  ", "socks5://10.0.0.1:9050", true),
        ("http://[::1]:8080", "http://[::1]:8080", false),
    ];
    for (raw, shown, credentials) in cases {
        let proxy = parse_proxy(raw).unwrap_or_else(|e| panic!("{raw}: {}", message(e)));
        assert_eq!(proxy.display(), shown, "{raw}");
        assert_eq!(proxy.has_credentials(), credentials, "{raw}");
        assert_eq!(proxy.expose_url(), Some(raw.trim()), "the sealed URL is what the admin gave");
        assert!(!format!("{proxy:?}").contains("s3cret"));
    }
}

#[test]
fn malformed_proxy_urls_are_refused_without_echoing_them() {
    let long = format!("http://u:s3cret@proxy.example/{}", "a".repeat(2100));
    let user = format!("socks5://{}:s3cret@proxy.example", "u".repeat(256));
    for raw in [
        "",
        "not a url s3cret",
        "https://u:s3cret@proxy.example",
        "ftp://u:s3cret@proxy.example",
        "http://u:s3cret@proxy.example/path",
        "http://u:s3cret@proxy.example?q=1",
        "http://u:s3cret@proxy.example#f",
        "socks5://:s3cret@proxy.example",
        long.as_str(),
        user.as_str(),
    ] {
        let refused = message(parse_proxy(raw).expect_err(raw));
        assert!(refused.starts_with("url: "), "{refused}");
        assert!(!refused.contains("s3cret") && !refused.contains("proxy.example"), "{refused}");
    }
}

#[tokio::test]
async fn the_host_passes_the_address_policy() {
    let strict = guard(false);
    assert!(check_proxy(&strict, "http://u:pw@proxy.example:3128").await.is_ok(), "a public proxy");
    for raw in ["http://proxy.internal:3128", "socks5://127.0.0.1:1080", "socks5://10.0.0.1", "http://[::1]:1"] {
        let refused = message(check_proxy(&strict, raw).await.expect_err(raw));
        assert!(refused.contains("admin.allow_private_urls"), "{raw}: {refused}");
    }
    let open = guard(true);
    for raw in ["http://proxy.internal:3128", "socks5://127.0.0.1:1080"] {
        assert!(check_proxy(&open, raw).await.is_ok(), "{raw} with allow_private_urls");
    }
    for raw in ["http://metadata.internal", "socks5://169.254.169.254:1080", "http://nowhere.example:1"] {
        assert!(check_proxy(&open, raw).await.is_err(), "{raw} stays refused");
    }
}

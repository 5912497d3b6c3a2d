//! The egress proxy health probe end to end (issue 18, decision 0246): the admin API probes a
//! URL not stored yet and the proxy that applies to an account (own, group, default), the
//! command line does the same with a non-zero exit when the proxy is unreachable. A probe opens
//! a tunnel to the provider's upstream origin (here the simulator; xAI's over TLS) and sends no
//! request; no answer, log line or output holds the proxy's password.

use serde_json::{Value, json};
use test_support::egress_proxy::TestProxy;
use upstream_sim::AccountSpec;

use crate::admin_api::{Admin, gateway};
use crate::gateway::Gateway;

const PRIVATE: (&str, &str) = ("SWITCHBOARD_ADMIN_ALLOW_PRIVATE_URLS", "true");

fn phases(check: &Value) -> Vec<(String, bool)> {
    let phases = check["phases"].as_array().cloned().unwrap_or_default();
    phases.iter().map(|p| (p["phase"].as_str().unwrap_or_default().to_owned(), p["ok"] == true)).collect()
}

fn names(list: &[(&str, bool)]) -> Vec<(String, bool)> {
    list.iter().map(|(n, ok)| ((*n).to_owned(), *ok)).collect()
}

fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

/// The simulator's xAI TLS origin, `https://host:port`.
fn xai_origin(g: &Gateway) -> String {
    let url = reqwest::Url::parse(&g.sim.tls_xai_base_url()).expect("url");
    format!("https://{}:{}", url.host_str().expect("host"), url.port_or_known_default().expect("port"))
}

async fn check_url(admin: &Admin, url: &str, provider: &str) -> Value {
    let answer = admin.post("/egress-proxies/check", json!({"url": url, "provider": provider})).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.json()
}

#[tokio::test]
async fn the_admin_api_probes_a_url_through_socks5_and_connect_to_the_tls_origin() {
    let g = gateway(vec![], &[PRIVATE]).await;
    let admin = Admin::login(&g).await;
    let socks = TestProxy::socks5(Some(("erin", "pr0be-pw"))).await;
    let requests = g.sim.requests().len();
    let check = check_url(&admin, &socks.url("socks5", Some("erin:pr0be-pw")), "xai").await;
    assert_eq!(check["reachable"], true, "{check}");
    assert_eq!(check["proxy"], format!("socks5://127.0.0.1:{}", socks.port));
    assert_eq!((check["hasCredentials"].as_bool(), check["provider"].as_str()), (Some(true), Some("xai")));
    assert_eq!(check["origin"], xai_origin(&g));
    let all_ok = [("proxy_connect", true), ("proxy_auth", true), ("tunnel", true), ("tls", true)];
    assert_eq!(phases(&check), names(&all_ok));
    assert!(check["totalMs"].is_u64() && check["failedPhase"].is_null(), "{check}");
    assert_eq!(socks.tunnels(), 1);
    assert_eq!(g.sim.requests().len(), requests, "a probe sends no request");

    let connect = TestProxy::http_connect(Some(("frank", "c0nnect-pw"))).await;
    let check = check_url(&admin, &connect.url("http", Some("frank:c0nnect-pw")), "xai").await;
    assert_eq!(phases(&check), names(&[("proxy_connect", true), ("tunnel", true), ("tls", true)]), "{check}");

    // Refused credentials, a dead proxy: 200 answers naming the failed phase.
    let refused = check_url(&admin, &connect.url("http", Some("frank:wr0ng-pw")), "openai").await;
    assert_eq!((refused["reachable"].as_bool(), refused["failedPhase"].as_str()), (Some(false), Some("proxy_auth")));
    let socks_refused = check_url(&admin, &socks.url("socks5", Some("erin:wr0ng-pw")), "xai").await;
    assert_eq!(socks_refused["failedPhase"], "proxy_auth", "{socks_refused}");
    let dead = check_url(&admin, &format!("socks5://127.0.0.1:{}", dead_port()), "xai").await;
    assert_eq!((dead["reachable"].as_bool(), dead["failedPhase"].as_str()), (Some(false), Some("proxy_connect")));
    for answer in [&refused, &socks_refused] {
        let text = answer.to_string();
        assert!(!text.contains("wr0ng-pw") && !text.contains("frank") && !text.contains("erin"), "{text}");
    }

    // Bad input: the URL rules of setting a proxy, in the admin envelope.
    let invalid = admin.post("/egress-proxies/check", json!({"url": "ftp://u:s3cret@host", "provider": "xai"})).await;
    assert_eq!(invalid.status, 422, "{}", invalid.text);
    assert_eq!(invalid.json()["error"]["fields"][0]["field"], "url");
    assert!(!invalid.text.contains("s3cret"), "{}", invalid.text);
    let provider = admin.post("/egress-proxies/check", json!({"url": "http://127.0.0.1:1", "provider": "x"})).await;
    assert_eq!(provider.status, 422, "{}", provider.text);
    assert!(!g.log().contains("pr0be-pw") && !g.log().contains("c0nnect-pw"), "the log holds no proxy password");
}

#[tokio::test]
async fn the_probe_of_an_account_takes_the_proxy_that_applies_to_it() {
    let socks = TestProxy::socks5(None).await;
    let default = socks.url("socks5", None);
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[PRIVATE, ("SWITCHBOARD_PROVIDERS_EGRESS_PROXY", &default)])
        .await;
    let admin = Admin::login(&g).await;
    let a = admin.ok("/accounts").await["items"][0]["id"].as_i64().expect("id");
    let path = format!("/accounts/{a}/egress-proxy/check");

    let check = admin.post(&path, json!({})).await;
    assert_eq!(check.status, 200, "{}", check.text);
    let check = check.json();
    assert_eq!((check["source"].as_str(), check["reachable"].as_bool()), (Some("default"), Some(true)), "{check}");
    assert_eq!(check["provider"], "openai");

    let group_proxy = TestProxy::http_connect(None).await;
    let group = admin.post("/groups", json!({"name": "probed", "accountIds": [a]})).await.json()["id"].as_i64();
    let group = group.expect("group id");
    let set = admin.put(&format!("/groups/{group}/egress-proxy"), json!({"url": group_proxy.url("http", None)})).await;
    assert_eq!(set.status, 200, "{}", set.text);
    let check = admin.post(&path, json!({})).await.json();
    assert_eq!((check["source"].as_str(), check["groupId"].as_i64()), (Some("group"), Some(group)), "{check}");
    // The OpenAI upstream of the test gateway is plain http: no TLS phase.
    assert_eq!(phases(&check), names(&[("proxy_connect", true), ("tunnel", true)]));
    assert_eq!(group_proxy.tunnels(), 1);

    let own = format!("http://gina:acc0unt-pw@127.0.0.1:{}", dead_port());
    assert_eq!(admin.put(&format!("/accounts/{a}/egress-proxy"), json!({"url": own})).await.status, 200);
    let check = admin.post(&path, json!({})).await;
    let text = check.text.clone();
    let check = check.json();
    assert_eq!((check["source"].as_str(), check["failedPhase"].as_str()), (Some("account"), Some("proxy_connect")));
    assert_eq!(check["hasCredentials"], true);
    assert!(!text.contains("acc0unt-pw") && !text.contains("gina"), "{text}");
    let missing = admin.post("/accounts/999999/egress-proxy/check", json!({})).await;
    assert_eq!(missing.status, 404, "{}", missing.text);
}

#[tokio::test]
async fn an_account_without_a_proxy_and_a_refused_address_are_not_probed() {
    // No private addresses allowed: a loopback proxy is refused like setting it would be.
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[]).await;
    let admin = Admin::login(&g).await;
    let proxy = TestProxy::http_connect(None).await;
    let refused =
        admin.post("/egress-proxies/check", json!({"url": proxy.url("http", None), "provider": "openai"})).await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert_eq!(proxy.tunnels(), 0);
    let a = admin.ok("/accounts").await["items"][0]["id"].as_i64().expect("id");
    let direct = admin.post(&format!("/accounts/{a}/egress-proxy/check"), json!({})).await;
    assert_eq!((direct.status.as_u16(), direct.code().as_str()), (409, "conflict"), "{}", direct.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_probes_a_url_and_an_account_and_fails_when_unreachable() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[PRIVATE]).await;
    let admin = Admin::login(&g).await;
    let socks = TestProxy::socks5(Some(("hank", "c1i-pr0be"))).await;
    let url = socks.url("socks5", Some("hank:c1i-pr0be"));
    let out = g.cli(&["proxy", "check", "-", "--provider", "xai"], Some(url.as_bytes()));
    assert!(out.contains("tls ok") && out.trim_end().ends_with("reachable"), "{out}");
    assert!(out.contains(&xai_origin(&g)) && !out.contains("c1i-pr0be") && !out.contains("hank"), "{out}");

    let a = admin.ok("/accounts").await["items"][0]["id"].as_i64().expect("id");
    assert_eq!(admin.put(&format!("/accounts/{a}/egress-proxy"), json!({"url": url})).await.status, 200);
    let out = g.cli(&["account", "proxy", "check", &a.to_string()], None);
    assert!(out.contains("(account)") && out.contains("proxy_auth ok"), "{out}");

    let dead = format!("http://127.0.0.1:{}", dead_port());
    let output = g.command().args(["proxy", "check", &dead]).output().expect("runs");
    assert_eq!(output.status.code(), Some(1), "unreachable: {output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("unreachable: proxy_connect failed"), "{stdout}");
}

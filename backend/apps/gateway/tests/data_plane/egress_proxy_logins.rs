//! OAuth logins through egress proxies end to end (issue 18, decision 0247): every upstream
//! call of a login (token exchange, device code and polling, xAI discovery, JWKS) goes through
//! the proxy the login named (a URL, a group's) or the default proxy; a re-authorisation goes
//! through its account's proxy. Counted: from the consent on, every connection the simulator
//! accepts is a tunnel of a test proxy, none comes directly. A new account keeps a named proxy
//! as its own (audited without the password).

use std::time::Duration;

use serde_json::{Value, json};
use test_support::egress_proxy::TestProxy;
use upstream_sim::AccountSpec;

use crate::admin_api::{Admin, gateway, last_audit};
use crate::gateway::Gateway;

const PRIVATE: (&str, &str) = ("SWITCHBOARD_ADMIN_ALLOW_PRIVATE_URLS", "true");

/// Follows an authorize address like a consenting browser (directly: the browser is not the
/// gateway) and returns the callback address.
async fn consent(g: &Gateway, authorize_url: &str) -> String {
    let ca = reqwest::Certificate::from_pem(g.sim.ca_pem().as_bytes()).expect("CA");
    let client = reqwest::Client::builder()
        .no_proxy()
        .add_root_certificate(ca)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let response = client.get(authorize_url).send().await.expect("authorize");
    assert_eq!(response.status(), 302, "the simulator consents with a redirect");
    response.headers()["location"].to_str().expect("location").to_owned()
}

/// Waits until every simulator connection since `before` is one of the proxies' tunnels (a
/// direct connection would keep the connections above the tunnels for good); returns the tunnels.
async fn all_through(g: &Gateway, before: (usize, usize), proxies: &[&TestProxy]) -> usize {
    let what = "every upstream connection of the login to be a proxy tunnel";
    let (connections, tunnels) = before;
    let settled = test_support::wait_until(what, Duration::from_secs(5), || async {
        let new_connections = g.sim.connections().len() - connections;
        let new_tunnels = proxies.iter().map(|p| p.tunnels()).sum::<usize>() - tunnels;
        // A tunnel the gateway gave up before its TLS handshake (a connection race under load)
        // is counted by the proxy but never reaches the simulator's log: more tunnels than
        // connections is settled too; a direct connection is one more connection than tunnels.
        (new_connections == new_tunnels || (new_tunnels > 0 && new_connections < new_tunnels)).then_some(new_tunnels)
    })
    .await;
    settled.expect("no upstream connection of the login was direct")
}

fn counts(g: &Gateway, proxies: &[&TestProxy]) -> (usize, usize) {
    (g.sim.connections().len(), proxies.iter().map(|p| p.tunnels()).sum())
}

fn calls(g: &Gateway, suffix: &str) -> usize {
    g.sim.requests().iter().filter(|r| r.path.ends_with(suffix)).count()
}

async fn ok(admin: &Admin, path: &str, body: Value) -> Value {
    let answer = admin.post(path, body).await;
    assert_eq!(answer.status, 200, "{path}: {}", answer.text);
    answer.json()
}

#[tokio::test]
async fn openai_logins_and_a_reauthorisation_go_through_the_proxy_they_take() {
    let g = gateway(vec![], &[PRIVATE]).await;
    g.sim.add_account(AccountSpec::openai("acct-browser")).expect("sim account");
    g.sim.add_account(AccountSpec::openai("acct-device")).expect("sim account");
    let admin = Admin::login(&g).await;
    let named = TestProxy::http_connect(Some(("ivy", "l0gin-pw"))).await;
    let grouped = TestProxy::socks5(None).await;
    let proxies = [&named, &grouped];

    // Browser login through a named URL: the token exchange goes through it.
    let started =
        ok(&admin, "/oauth/openai/start", json!({"egressProxy": named.url("http", Some("ivy:l0gin-pw"))})).await;
    let back = consent(&g, started["authorizeUrl"].as_str().expect("url")).await;
    let before = counts(&g, &proxies);
    let tokens = calls(&g, "/oauth/token");
    let done = ok(&admin, "/oauth/openai/complete", json!({"callbackUrl": back})).await;
    assert_eq!(calls(&g, "/oauth/token"), tokens + 1);
    assert!(all_through(&g, before, &proxies).await >= 1);
    assert!(named.tunnels() >= 1, "the exchange went through the named proxy");
    let account = done["accountId"].as_i64().expect("account id");
    let view = admin.ok(&format!("/accounts/{account}")).await;
    let kept = &view["account"]["egressProxy"];
    assert_eq!((kept["url"].as_str(), kept["hasCredentials"].as_bool()), (Some(&*named.url("http", None)), Some(true)));
    let (action, _, details) = last_audit(&g.pool().await).await;
    assert_eq!((action.as_str(), details["egress_proxy_kept"].as_bool()), ("account.oauth_login", Some(true)));
    assert_eq!(details["egress_proxy"], named.url("http", None));
    assert!(!details.to_string().contains("l0gin-pw"), "{details}");

    // Re-authorising it goes through its own proxy and names none.
    let refused =
        admin.post("/oauth/openai/start", json!({"accountId": account, "egressProxy": "http://1.2.3.4"})).await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    let again = ok(&admin, "/oauth/openai/start", json!({"accountId": account})).await;
    let back = consent(&g, again["authorizeUrl"].as_str().expect("url")).await;
    let before = counts(&g, &proxies);
    let tokens = calls(&g, "/oauth/token");
    let reauthorized = ok(&admin, "/oauth/openai/complete", json!({"callbackUrl": back})).await;
    assert_eq!(reauthorized["reauthorized"], true);
    assert_eq!(calls(&g, "/oauth/token"), tokens + 1);
    // The exchange rode the pooled connection through the account's proxy (pooled per proxy):
    // no new connection reached the simulator other than through a proxy.
    all_through(&g, before, &proxies).await;

    // Device login through a group's proxy: user code, polls and the exchange.
    let group = admin.post("/groups", json!({"name": "logins", "accountIds": []})).await;
    assert_eq!(group.status, 201, "{}", group.text);
    let group = group.json()["id"].as_i64().expect("group id");
    let set = admin.put(&format!("/groups/{group}/egress-proxy"), json!({"url": grouped.url("socks5", None)})).await;
    assert_eq!(set.status, 200, "{}", set.text);
    let before = counts(&g, &proxies);
    let started = ok(&admin, "/oauth/openai/device/start", json!({"groupId": group})).await;
    let flow = started["flowId"].as_str().expect("flow").to_owned();
    assert_eq!(ok(&admin, "/oauth/openai/device/poll", json!({"flowId": flow})).await["status"], "pending");
    g.sim.approve_device(started["userCode"].as_str(), "acct-device").expect("approve");
    let done = ok(&admin, "/oauth/openai/device/poll", json!({"flowId": flow})).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(all_through(&g, before, &proxies).await >= 1);
    assert!(grouped.tunnels() >= 1, "the device calls went through the group's proxy");
    let device_account = done["account"]["accountId"].as_i64().expect("id");
    let view = admin.ok(&format!("/accounts/{device_account}")).await;
    assert_eq!(view["account"]["egressProxy"]["url"], grouped.url("socks5", None), "{view}");
    assert!(!g.log().contains("l0gin-pw"), "the log holds no proxy password");
}

#[tokio::test]
async fn xai_logins_go_through_the_default_proxy_and_do_not_copy_it() {
    let socks = TestProxy::socks5(Some(("jo", "d3fault-pw"))).await;
    let default = socks.url("socks5", Some("jo:d3fault-pw"));
    let g = gateway(vec![], &[PRIVATE, ("SWITCHBOARD_PROVIDERS_EGRESS_PROXY", &default)]).await;
    g.sim.add_account(AccountSpec::xai("grok-browser")).expect("sim account");
    g.sim.add_account(AccountSpec::xai("grok-device")).expect("sim account");
    let admin = Admin::login(&g).await;
    let proxies = [&socks];

    // Browser: discovery, token exchange and the JWKS, all through the default proxy.
    let started = ok(&admin, "/oauth/xai/start", json!({})).await;
    let back = consent(&g, started["authorizeUrl"].as_str().expect("url")).await;
    let before = counts(&g, &proxies);
    let done = ok(&admin, "/oauth/xai/complete", json!({"callbackUrl": back})).await;
    assert_eq!(done["created"], true, "{done}");
    assert!(all_through(&g, before, &proxies).await >= 1);
    let account = done["accountId"].as_i64().expect("id");
    let view = admin.ok(&format!("/accounts/{account}")).await;
    assert!(view["account"]["egressProxy"].is_null(), "the default proxy is not copied: {view}");
    assert_eq!(last_audit(&g.pool().await).await.2["egress_proxy_kept"], false);

    // Device: the code request, the polls and the key set.
    let before = counts(&g, &proxies);
    let started = ok(&admin, "/oauth/xai/device/start", json!({})).await;
    let flow = started["flowId"].as_str().expect("flow").to_owned();
    assert_eq!(ok(&admin, "/oauth/xai/device/poll", json!({"flowId": flow})).await["status"], "pending");
    g.sim.approve_device(started["userCode"].as_str(), "grok-device").expect("approve");
    let done = ok(&admin, "/oauth/xai/device/poll", json!({"flowId": flow})).await;
    assert_eq!(done["status"], "completed", "{done}");
    // The device calls may ride the connection the browser login pooled through the proxy.
    all_through(&g, before, &proxies).await;
    assert!(!g.log().contains("d3fault-pw"), "the log holds no proxy password");
}

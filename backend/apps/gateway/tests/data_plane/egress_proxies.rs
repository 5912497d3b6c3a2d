//! Egress proxies end to end (issue 18): an account behind a local HTTP CONNECT proxy (its own
//! proxy) and one behind a local SOCKS5 proxy (its group's), both with credentials, serve
//! requests through them; a dead proxy moves the request to another account and leaves the
//! first one uncooled (the failure is the proxy's, decision 0242). The account's other calls
//! (token refresh, usage probe) take its proxy too, and never go out directly when it is down.

use std::collections::HashMap;

use serde_json::{Value, json};
use sqlx::Row;
use test_support::egress_proxy::TestProxy;
use upstream_sim::AccountSpec;

use super::{make_sticky, wait_for_reload};
use crate::admin_api::{Admin, gateway};
use crate::gateway::{Gateway, terminal_rows};

const PRIVATE: (&str, &str) = ("SWITCHBOARD_ADMIN_ALLOW_PRIVATE_URLS", "true");

/// Admin ids by the simulator's account ids.
async fn account_ids(admin: &Admin) -> HashMap<String, i64> {
    let accounts = admin.ok("/accounts").await;
    let items = accounts["items"].as_array().expect("items");
    items
        .iter()
        .map(|a| (a["externalAccountId"].as_str().expect("external id").to_owned(), a["id"].as_i64().expect("id")))
        .collect()
}

async fn put_proxy(admin: &Admin, path: &str, url: &str) -> Value {
    let answer = admin.put(path, json!({"url": url})).await;
    assert_eq!(answer.status, 200, "{path}: {}", answer.text);
    answer.json()
}

async fn enable(admin: &Admin, id: i64, enabled: bool) {
    let answer = admin.patch(&format!("/accounts/{id}"), json!({"enabled": enabled})).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
}

fn served_by(gateway: &Gateway, account: &str) -> usize {
    let requests = gateway.sim.requests();
    requests.iter().filter(|r| r.path.ends_with("/codex/responses") && r.account_id.as_deref() == Some(account)).count()
}

async fn one_turn(gateway: &Gateway) {
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 200);
    let body = response.text().await.expect("body");
    assert!(body.contains("response.completed"), "{body}");
}

#[tokio::test]
async fn accounts_behind_a_connect_and_a_socks5_proxy_serve_through_them() {
    let g = gateway(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], &[PRIVATE]).await;
    let admin = Admin::login(&g).await;
    let ids = account_ids(&admin).await;
    let (a, b) = (ids["acct-a"], ids["acct-b"]);
    let connect = TestProxy::http_connect(Some(("alice", "c0nnect-pw"))).await;
    let socks = TestProxy::socks5(Some(("bob", "s0cks-pw"))).await;
    // acct-a: its own CONNECT proxy; acct-b: the SOCKS5 proxy of its group.
    let set =
        put_proxy(&admin, &format!("/accounts/{a}/egress-proxy"), &connect.url("http", Some("alice:c0nnect-pw"))).await;
    assert_eq!(set["egressProxy"]["url"], format!("http://127.0.0.1:{}", connect.port));
    let group = admin.post("/groups", json!({"name": "socks", "accountIds": [b]})).await;
    assert_eq!(group.status, 201, "{}", group.text);
    let group = group.json()["id"].as_i64().expect("group id");
    put_proxy(&admin, &format!("/groups/{group}/egress-proxy"), &socks.url("socks5", Some("bob:s0cks-pw"))).await;

    // Only acct-a in the pool.
    enable(&admin, b, false).await;
    wait_for_reload(&g).await;
    one_turn(&g).await;
    assert_eq!((served_by(&g, "acct-a"), served_by(&g, "acct-b")), (1, 0));
    assert_eq!((connect.tunnels(), socks.tunnels()), (1, 0), "acct-a went through its CONNECT proxy");

    // Only acct-b.
    enable(&admin, b, true).await;
    enable(&admin, a, false).await;
    wait_for_reload(&g).await;
    one_turn(&g).await;
    assert_eq!((served_by(&g, "acct-a"), served_by(&g, "acct-b")), (1, 1));
    assert_eq!((connect.tunnels(), socks.tunnels()), (1, 1), "acct-b went through its group's SOCKS5 proxy");

    // Views name the proxies, never their credentials.
    let account = admin.get(&format!("/accounts/{a}")).await;
    let groups = admin.get("/groups").await;
    for text in [&account.text, &groups.text] {
        assert!(!text.contains("c0nnect-pw") && !text.contains("s0cks-pw") && !text.contains("alice"), "{text}");
    }
    assert_eq!(account.json()["account"]["egressProxy"]["hasCredentials"], true, "{}", account.text);
    assert!(groups.text.contains(&format!("socks5://127.0.0.1:{}", socks.port)), "{}", groups.text);
    assert!(!g.log().contains("c0nnect-pw") && !g.log().contains("s0cks-pw"), "the log holds no proxy password");
}

#[tokio::test]
async fn a_dead_proxy_moves_the_request_to_another_account_without_cooling_the_first() {
    let g = gateway(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], &[PRIVATE]).await;
    make_sticky(&g).await;
    let admin = Admin::login(&g).await;
    let ids = account_ids(&admin).await;
    let (a, b) = (ids["acct-a"], ids["acct-b"]);
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    put_proxy(&admin, &format!("/accounts/{a}/egress-proxy"), &format!("socks5://127.0.0.1:{dead}")).await;
    // acct-a first: the heaviest account before any was used.
    let heavier = admin.patch(&format!("/accounts/{a}"), json!({"weight": 100})).await;
    assert_eq!(heavier.status, 200, "{}", heavier.text);
    wait_for_reload(&g).await;

    one_turn(&g).await;
    assert_eq!((served_by(&g, "acct-a"), served_by(&g, "acct-b")), (0, 1), "nothing left acct-a");
    let rows = terminal_rows(&g.pool().await, 1).await;
    let attempts: Value = rows[0].get("attempts");
    let outcomes: Vec<(i64, String)> = attempts
        .as_array()
        .expect("attempts")
        .iter()
        .map(|t| (t["accountId"].as_i64().unwrap_or_default(), t["outcome"].as_str().unwrap_or_default().to_owned()))
        .collect();
    assert_eq!(outcomes, vec![(a, "egress_proxy_failed".to_owned()), (b, "ok".to_owned())]);
    // Not the account's fault: no cooldown, still normal.
    let account = admin.ok(&format!("/accounts/{a}")).await["account"].clone();
    assert_eq!(account["state"], "normal", "{account}");
    assert!(account["stateUntil"].is_null(), "{account}");

    // With its proxy cleared, acct-a (still the heaviest, never cooled) serves the next turn
    // once acct-b is out of the way.
    assert_eq!(admin.delete(&format!("/accounts/{a}/egress-proxy")).await.status, 204);
    enable(&admin, b, false).await;
    wait_for_reload(&g).await;
    one_turn(&g).await;
    assert_eq!(served_by(&g, "acct-a"), 1);
}

fn upstream_calls(gateway: &Gateway, path: &str) -> usize {
    gateway.sim.requests().iter().filter(|r| r.path.ends_with(path)).count()
}

#[tokio::test]
async fn the_refresh_and_the_usage_probe_of_an_account_go_through_its_proxy() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[PRIVATE]).await;
    let admin = Admin::login(&g).await;
    let a = account_ids(&admin).await["acct-a"];
    let connect = TestProxy::http_connect(Some(("alice", "c0nnect-pw"))).await;
    put_proxy(&admin, &format!("/accounts/{a}/egress-proxy"), &connect.url("http", Some("alice:c0nnect-pw"))).await;
    wait_for_reload(&g).await;

    let tokens = upstream_calls(&g, "/oauth/token");
    let refreshed = admin.post(&format!("/accounts/{a}/refresh"), json!({})).await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.text);
    assert_eq!(refreshed.json()["refreshed"], true, "{}", refreshed.text);
    assert_eq!(upstream_calls(&g, "/oauth/token"), tokens + 1);
    assert_eq!(connect.tunnels(), 1, "the token call went through the account's CONNECT proxy");
    let probe = admin.post(&format!("/accounts/{a}/probe"), json!({})).await;
    assert_eq!(probe.json()["ok"], true, "{}", probe.text);
    assert!(upstream_calls(&g, "/wham/usage") >= 1);

    // Behind a dead proxy nothing of the account leaves directly: no token call, no probe.
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    put_proxy(&admin, &format!("/accounts/{a}/egress-proxy"), &format!("socks5://127.0.0.1:{dead}")).await;
    wait_for_reload(&g).await;
    let (tokens, usage) = (upstream_calls(&g, "/oauth/token"), upstream_calls(&g, "/wham/usage"));
    let refused = admin.post(&format!("/accounts/{a}/refresh"), json!({})).await;
    assert_ne!(refused.json()["refreshed"], true, "{}", refused.text);
    let probe = admin.post(&format!("/accounts/{a}/probe"), json!({})).await;
    assert_ne!(probe.json()["ok"], true, "{}", probe.text);
    assert_eq!((upstream_calls(&g, "/oauth/token"), upstream_calls(&g, "/wham/usage")), (tokens, usage));
}

#[tokio::test]
async fn the_default_proxy_serves_accounts_without_one_of_their_own() {
    let socks = TestProxy::socks5(Some(("carol", "d3fault-pw"))).await;
    let url = socks.url("socks5", Some("carol:d3fault-pw"));
    let g =
        gateway(vec![AccountSpec::openai("acct-a")], &[PRIVATE, ("SWITCHBOARD_PROVIDERS_EGRESS_PROXY", &url)]).await;
    one_turn(&g).await;
    assert_eq!(served_by(&g, "acct-a"), 1);
    // The turn's tunnel, and possibly the account's background calls (catalog, probe), which
    // take the default proxy too: nothing of the account went out directly.
    assert!(socks.tunnels() >= 1, "the account without a proxy of its own went through the default");
    assert!(!g.log().contains("d3fault-pw"), "the log holds no proxy password");
}

#[tokio::test]
async fn the_command_line_sets_and_clears_account_and_group_proxies_audited() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[PRIVATE]).await;
    let admin = Admin::login(&g).await;
    let a = account_ids(&admin).await["acct-a"];
    let connect = TestProxy::http_connect(Some(("dave", "c1i-pw"))).await;
    // The URL from standard input: its password never reaches the process list.
    let url = connect.url("http", Some("dave:c1i-pw"));
    g.cli(&["account", "proxy", "set", &a.to_string(), "-"], Some(url.as_bytes()));
    let view = admin.ok(&format!("/accounts/{a}")).await;
    assert_eq!(view["account"]["egressProxy"]["url"], format!("http://127.0.0.1:{}", connect.port), "{view}");
    wait_for_reload(&g).await;
    one_turn(&g).await;
    assert_eq!(connect.tunnels(), 1, "the account's proxy set from the command line carries its turn");

    let group = admin.post("/groups", json!({"name": "cli", "accountIds": [a]})).await.json()["id"].as_i64();
    let group = group.expect("group id").to_string();
    g.cli(&["group", "proxy", "set", &group, &format!("socks5://127.0.0.1:{}", connect.port)], None);
    g.cli(&["group", "proxy", "clear", &group], None);
    g.cli(&["account", "proxy", "clear", &a.to_string()], None);
    assert!(admin.ok(&format!("/accounts/{a}")).await["account"]["egressProxy"].is_null());
    for action in ["account.egress_proxy", "group.egress_proxy"] {
        let audit = admin.ok(&format!("/audit?action={action}")).await;
        let items = audit["items"].as_array().expect("items");
        assert_eq!(items.iter().filter(|i| i["action"] == action).count(), 2, "set and clear audited: {audit}");
        assert!(!audit.to_string().contains("c1i-pw"), "no audit row holds the password");
    }
}

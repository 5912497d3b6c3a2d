//! The continuation matrix: {HTTP→HTTP, HTTP→WS, WS→HTTP, WS→WS} × {owner healthy, exhausted,
//! disabled} × {same replica, other replica}. Every cell either continues on the owner or answers
//! `previous_response_not_found`; none is served by another account, and another key's
//! response id is never continued.

mod client;

use serde_json::json;
use upstream_sim::AccountSpec;

use crate::data_plane::make_sticky;
use crate::gateway::Gateway;
use client::{Outcome, Transport, first_turn, next_turn};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Owner {
    Healthy,
    Exhausted,
    Disabled,
}

/// Upstream calls served by each account so far.
fn calls(gateway: &Gateway, account: &str) -> usize {
    gateway
        .sim
        .requests()
        .iter()
        .filter(|r| {
            (r.method == "WS" || r.path.ends_with("/codex/responses")) && r.account_id.as_deref() == Some(account)
        })
        .count()
}

async fn matrix(owner: Owner) {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")]).await;
    make_sticky(&gateway).await; // first responses land on acct-a (the first account)
    let other = gateway.replica().await;

    // Every first turn while the owner is healthy.
    let mut cells = Vec::new();
    for first in [Transport::Http, Transport::Websocket] {
        for second in [Transport::Http, Transport::Websocket] {
            for same_replica in [true, false] {
                let opened = first_turn(&gateway.url, &gateway.key, first).await;
                cells.push((first, second, same_replica, opened));
            }
        }
    }
    match owner {
        Owner::Healthy => {}
        Owner::Exhausted => {
            gateway.sim.exhaust_quota("acct-a").expect("exhaust");
        }
        Owner::Disabled => {
            gateway.cli(&["account", "update", "1", "--disable"], None);
            crate::data_plane::wait_for_reload(&gateway).await;
            other.wait_for_reload(&gateway).await;
        }
    }
    let b_before = calls(&gateway, "acct-b");

    for (first, second, same_replica, opened) in cells {
        let url = if same_replica { &gateway.url } else { &other.url };
        let outcome = next_turn(url, &gateway.key, second, opened).await;
        let cell = format!("{first:?}->{second:?} owner {owner:?} same_replica {same_replica}");
        let continues = owner == Owner::Healthy && same_replica && first == Transport::Websocket;
        if continues {
            assert_eq!(outcome, Outcome::Continued, "{cell}");
        } else {
            assert_eq!(outcome, Outcome::PreviousResponseNotFound, "{cell}");
        }
    }
    assert_eq!(calls(&gateway, "acct-b"), b_before, "no continuation was served by another account");
    if owner == Owner::Healthy {
        // The continued cells ran on the live upstream sockets: the pool counts the reuse.
        let text = reqwest::get(format!("{}/metrics", gateway.url)).await.expect("scrape").text().await.expect("text");
        let pool = [("provider", "openai")];
        assert!(
            test_support::prometheus_sample(&text, "switchboard_websocket_pool_reuses_total", &pool) >= 2.0,
            "{text}"
        );
        assert!(
            test_support::prometheus_sample(&text, "switchboard_websocket_pool_opened_total", &pool) >= 1.0,
            "{text}"
        );
    }
}

#[tokio::test]
async fn continuation_matrix_owner_healthy() {
    matrix(Owner::Healthy).await;
}

#[tokio::test]
async fn continuation_matrix_owner_exhausted() {
    matrix(Owner::Exhausted).await;
}

#[tokio::test]
async fn continuation_matrix_owner_disabled() {
    matrix(Owner::Disabled).await;
}

#[tokio::test]
async fn another_keys_response_id_fails_closed() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let other_key = gateway.cli(&["key", "create", "intruder"], None).trim().to_owned();
    crate::data_plane::wait_for_reload(&gateway).await;
    let opened = first_turn(&gateway.url, &gateway.key, Transport::Websocket).await;
    // The owner's key continues; the other key gets the same answer as for an unknown id.
    for transport in [Transport::Http, Transport::Websocket] {
        let outcome = next_turn(&gateway.url, &other_key, transport, opened.clone()).await;
        assert_eq!(outcome, Outcome::PreviousResponseNotFound, "{transport:?}");
    }
    let unknown = json!("resp_does_not_exist");
    let mut fake = opened.clone();
    fake.response_id = unknown.as_str().map(str::to_owned).unwrap_or_default();
    assert_eq!(next_turn(&gateway.url, &gateway.key, Transport::Http, fake).await, Outcome::PreviousResponseNotFound);
    assert_eq!(next_turn(&gateway.url, &gateway.key, Transport::Http, opened).await, Outcome::Continued);
}

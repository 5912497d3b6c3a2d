//! Identity hygiene end to end, over the production path (the simulator's TLS listener, HTTP/2
//! by ALPN): a client's installation id never reaches a second account (the simulator refuses
//! an installation id it saw on another account), its conversation identifiers go upstream as
//! per-account values (the simulator refuses a session id it saw on another account too), and
//! the request profile is Codex's.

use serde_json::json;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

const OVER_TLS: &[(&str, &str)] = &[
    ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL", "{sim_tls_backend}"),
    ("SWITCHBOARD_PROVIDERS_OPENAI_EXTRA_CA_FILE", "{sim_ca_file}"),
];

async fn turn(gateway: &Gateway) -> reqwest::Response {
    let body = json!({
        "model": "gpt-5.4",
        "input": "hi",
        "stream": true,
        "client_metadata": {"x-codex-installation-id": "client-install-1", "x-codex-window-id": "w-1", "originator": "codex_exec"},
    });
    gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .bearer_auth(&gateway.key)
        .header("x-codex-installation-id", "client-install-1")
        .header("session-id", "sess-dash")
        .json(&body)
        .send()
        .await
        .expect("sent")
}

#[tokio::test]
async fn one_clients_installation_id_never_reaches_two_accounts() {
    let gateway =
        Gateway::start_with(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], OVER_TLS).await;
    let first = turn(&gateway).await;
    assert_eq!(first.status(), 200);
    first.bytes().await.expect("body");
    let served = |gateway: &Gateway| {
        gateway.sim.requests().into_iter().filter(|r| r.path.ends_with("/codex/responses")).collect::<Vec<_>>()
    };
    let first_account = served(&gateway).last().and_then(|r| r.account_id.clone()).expect("served");
    // The next turn cannot go to the same account: it has no quota left.
    gateway.sim.exhaust_quota(&first_account).expect("exhaust");
    let second = turn(&gateway).await;
    assert_eq!(second.status(), 200, "the other account serves it: the simulator saw no foreign installation id");
    second.bytes().await.expect("body");
    let requests = served(&gateway);
    let ok = requests.iter().rfind(|r| r.account_id.as_deref() != Some(first_account.as_str())).expect("other");
    let first_request =
        requests.iter().find(|r| r.account_id.as_deref() == Some(first_account.as_str())).expect("first");
    for request in [first_request, ok] {
        let installation = request.header("x-codex-installation-id").expect("header kept").to_owned();
        assert_ne!(installation, "client-install-1", "the client's installation id never goes upstream");
        let body = request.json().expect("json body");
        assert_eq!(body["client_metadata"]["x-codex-installation-id"], installation.as_str());
        assert_eq!(body["client_metadata"]["originator"], "codex_exec", "other metadata is kept");
        assert_ne!(body["client_metadata"]["x-codex-window-id"], "w-1", "the window id is the account's");
        let session = request.header("session-id").expect("the client's spelling is kept");
        assert!(session != "sess-dash" && request.header("session_id").is_none(), "{session}");
        let agent = request.header("user-agent").expect("user agent");
        assert!(agent.starts_with("codex_cli_rs/0.171.0 (") && !agent.contains("switchboard"), "{agent}");
    }
    assert_ne!(
        first_request.header("x-codex-installation-id"),
        ok.header("x-codex-installation-id"),
        "each account has its own installation id"
    );
    let connections = gateway.sim.connections();
    assert!(connections.iter().any(|c| c.tls && c.alpn.as_deref() == Some("h2")), "{connections:?}");
}

#[tokio::test]
async fn codex_headers_go_on_the_upstream_websocket_handshake_too() {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;

    let gateway = Gateway::start_with(vec![AccountSpec::openai("acct-a")], OVER_TLS).await;
    let url = gateway.url.replacen("http://", "ws://", 1) + "/v1/responses";
    let mut request = url.into_client_request().expect("request");
    let headers = request.headers_mut();
    headers.insert("authorization", format!("Bearer {}", gateway.key).parse().expect("header"));
    for (name, value) in [
        ("session-id", "sess-ws"),
        ("thread-id", "thread-ws"),
        ("x-client-request-id", "req-ws"),
        ("x-codex-window-id", "win-ws"),
        ("x-codex-installation-id", "client-install-ws"),
    ] {
        headers.insert(name, value.parse().expect("header"));
    }
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.expect("websocket connects");
    let frame = json!({"type": "response.create", "model": "gpt-5.4", "store": false, "input": "sim: text='hi'",
                       "prompt_cache_key": "sess-ws",
                       "client_metadata": {"x-codex-installation-id": "client-install-ws", "session_id": "sess-ws"}});
    socket.send(Message::text(frame.to_string())).await.expect("send");
    loop {
        let event = super::request_bodies::next_event(&mut socket).await;
        match event["type"].as_str() {
            Some("response.completed") => break,
            Some("error" | "response.failed") => panic!("{event}"),
            _ => {}
        }
    }
    let requests = gateway.sim.requests();
    let upgrade = requests
        .iter()
        .find(|r| r.method == "GET" && r.path.ends_with("/codex/responses"))
        .expect("the upstream socket was opened");
    let upstream_id = |name: &str, client: &str| {
        let value = upgrade.header(name).unwrap_or_else(|| panic!("{name} goes on the handshake")).to_owned();
        assert!(value != client && uuid::Uuid::parse_str(&value).is_ok(), "{name}: the account's value, {value}");
        value
    };
    let session = upstream_id("session-id", "sess-ws");
    assert_ne!(upstream_id("thread-id", "thread-ws"), session, "different client values stay different");
    upstream_id("x-client-request-id", "req-ws");
    upstream_id("x-codex-window-id", "win-ws");
    let installation = upgrade.header("x-codex-installation-id").expect("installation header");
    assert_ne!(installation, "client-install-ws");
    assert!(upgrade.header("user-agent").is_some_and(|ua| ua.starts_with("codex_cli_rs/0.171.0 (")));
    let sent = requests.iter().find(|r| r.method == "WS").and_then(|r| r.json()).expect("the frame went upstream");
    assert_eq!(sent["client_metadata"]["x-codex-installation-id"], installation);
    assert_eq!(sent["prompt_cache_key"], session.as_str(), "the same client session, the same upstream value");
    assert_eq!(sent["client_metadata"]["session_id"], session.as_str());
}

async fn session_turn(gateway: &Gateway) {
    let body = json!({
        "model": "gpt-5.4",
        "input": "hi",
        "stream": true,
        "prompt_cache_key": CLIENT_SESSION,
        "client_metadata": {"session_id": CLIENT_SESSION},
    });
    let response = gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .bearer_auth(&gateway.key)
        .header("session_id", CLIENT_SESSION)
        .json(&body)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200, "the simulator saw no foreign session id");
    response.bytes().await.expect("body");
}

const CLIENT_SESSION: &str = "0199a6f0-7c2e-7b41-9d5a-3f0e8c1b2a47";

/// The same client session reaches two accounts (the first runs out of quota): each account
/// sees its own upstream value, the same on every turn, in the header, `prompt_cache_key` and
/// `client_metadata` alike.
#[tokio::test]
async fn one_client_session_has_its_own_upstream_value_on_each_account() {
    let gateway =
        Gateway::start_with(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], OVER_TLS).await;
    session_turn(&gateway).await;
    session_turn(&gateway).await;
    let served = |gateway: &Gateway| {
        gateway.sim.requests().into_iter().filter(|r| r.path.ends_with("/codex/responses")).collect::<Vec<_>>()
    };
    let first_account = served(&gateway).first().and_then(|r| r.account_id.clone()).expect("served");
    gateway.sim.exhaust_quota(&first_account).expect("exhaust");
    session_turn(&gateway).await;
    session_turn(&gateway).await;
    let mut by_account = std::collections::BTreeMap::<String, Vec<String>>::new();
    for request in served(&gateway) {
        let session = request.header("session_id").expect("the client's spelling").to_owned();
        assert!(request.header("session-id").is_none());
        let body = request.json().expect("json body");
        assert_eq!(body["prompt_cache_key"], session.as_str(), "one client value, one upstream value");
        assert_eq!(body["client_metadata"]["session_id"], session.as_str());
        assert_ne!(session, CLIENT_SESSION, "the client's session id never goes upstream");
        assert!(uuid::Uuid::parse_str(&session).is_ok(), "UUID-shaped: {session}");
        by_account.entry(request.account_id.clone().expect("account")).or_default().push(session);
    }
    assert_eq!(by_account.len(), 2, "both accounts served the session: {by_account:?}");
    for (account, sessions) in &by_account {
        assert!(sessions.windows(2).all(|pair| pair[0] == pair[1]), "stable on {account}: {sessions:?}");
    }
    let values: Vec<&String> = by_account.values().map(|sessions| &sessions[0]).collect();
    assert_ne!(values[0], values[1], "each account has its own value");
    assert!(by_account.values().any(|sessions| sessions.len() >= 2), "some account served two turns");
}

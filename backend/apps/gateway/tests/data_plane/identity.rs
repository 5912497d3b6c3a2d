//! Identity hygiene end to end, over the production path (the simulator's TLS listener, HTTP/2
//! by ALPN): a client's installation id never reaches a second account (the simulator refuses
//! an installation id it saw on another account), and the request profile is Codex's.

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
        "client_metadata": {"x-codex-installation-id": "client-install-1", "x-codex-window-id": "w-1"},
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
        assert_eq!(body["client_metadata"]["x-codex-window-id"], "w-1", "other metadata is kept");
        assert_eq!(request.header("session-id"), Some("sess-dash"), "the client's spelling is kept");
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
                       "client_metadata": {"x-codex-installation-id": "client-install-ws"}});
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
    assert_eq!(upgrade.header("session-id"), Some("sess-ws"));
    assert_eq!(upgrade.header("thread-id"), Some("thread-ws"));
    assert_eq!(upgrade.header("x-client-request-id"), Some("req-ws"));
    assert_eq!(upgrade.header("x-codex-window-id"), Some("win-ws"));
    let installation = upgrade.header("x-codex-installation-id").expect("installation header");
    assert_ne!(installation, "client-install-ws");
    assert!(upgrade.header("user-agent").is_some_and(|ua| ua.starts_with("codex_cli_rs/0.171.0 (")));
    let sent = requests.iter().find(|r| r.method == "WS").and_then(|r| r.json()).expect("the frame went upstream");
    assert_eq!(sent["client_metadata"]["x-codex-installation-id"], installation);
}

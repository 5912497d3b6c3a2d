//! The upstream socket's read limits (`websocket/connect.rs`): never below the client API's
//! body limit.

use provider_openai::request_profile::{ProfileHolder, RequestProfile};
use provider_openai::websocket::WsEndpoint;

fn endpoint(message_limit: usize) -> WsEndpoint {
    let profile = RequestProfile::new("codex_cli_rs", "0.135.0", None).expect("profile");
    let roots = gateway_transport::TlsRoots::new(None).expect("platform roots");
    WsEndpoint {
        connector: gateway_transport::Connector::new(roots, std::time::Duration::from_secs(1)),
        url: "ws://127.0.0.1:9/codex/responses".to_owned(),
        profile: ProfileHolder::new(profile, None),
        connect_timeout: std::time::Duration::from_secs(1),
        message_limit,
        cookies: Default::default(),
        cookie_url: url::Url::parse("http://127.0.0.1:9/codex/responses").expect("url"),
    }
}

#[test]
fn the_upstream_socket_reads_at_least_the_client_body_limit() {
    let config = endpoint(100 << 20).config();
    assert_eq!(config.max_message_size, Some(100 << 20));
    assert_eq!(config.max_frame_size, Some(100 << 20), "tungstenite's 16 MiB frame default is raised");
    // A small body limit keeps tungstenite's defaults: the upstream may answer with more.
    let config = endpoint(1 << 20).config();
    assert_eq!(config.max_message_size, Some(64 << 20));
    assert_eq!(config.max_frame_size, Some(16 << 20));
}

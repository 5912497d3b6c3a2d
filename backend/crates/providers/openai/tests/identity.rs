//! Per-account conversation identifiers (`identity.rs`, decision 0233): the client's session,
//! thread, window, turn and request ids and its `prompt_cache_key` go upstream as values derived
//! from (serving account, client value) — stable, different per account, not the client's.

use bytes::Bytes;
use gateway_protocol::request::RequestBody;
use provider_openai::identity::{AccountIdentity, IdentityKey};
use provider_openai::transport::Transport;
use serde_json::{Value, json};

const SESSION: &str = "0199a6f0-7c2e-7b41-9d5a-3f0e8c1b2a47";

fn account(upstream_id: &str, key: &IdentityKey) -> AccountIdentity {
    AccountIdentity::from_parts(None, upstream_id, key)
}

fn is_v4_uuid(value: &str) -> bool {
    uuid::Uuid::parse_str(value).is_ok_and(|u| u.get_version_num() == 4) && value.len() == 36
}

#[test]
fn a_client_session_has_one_upstream_value_per_account() {
    let key = IdentityKey::derive(b"k1:deployment");
    let (a, b) = (account("acct-a", &key), account("acct-b", &key));
    let on_a = a.upstream_value(SESSION);
    assert_ne!(on_a, SESSION, "never the client's value");
    assert!(is_v4_uuid(&on_a), "a UUID stays UUID-shaped, without the client's v7 timestamp: {on_a}");
    assert_eq!(on_a, a.upstream_value(SESSION), "stable: the upstream's prompt cache still hits");
    assert_eq!(
        on_a,
        account("acct-a", &IdentityKey::derive(b"k1:deployment")).upstream_value(SESSION),
        "every replica"
    );
    assert_ne!(on_a, b.upstream_value(SESSION), "different per account");
    assert_ne!(on_a, account("acct-a", &IdentityKey::derive(b"k1:other")).upstream_value(SESSION), "keyed");
    assert_ne!(a.upstream_value("other-session"), a.upstream_value("other-session2"));
}

#[test]
fn identifiers_keep_their_shape() {
    let a = account("acct-a", &IdentityKey::random());
    let window = a.upstream_value(&format!("{SESSION}:3"));
    assert_eq!(window, format!("{}:3", a.upstream_value(SESSION)), "a UUID inside a value is replaced in place");
    let opaque = a.upstream_value("user-42-chat");
    assert!(is_v4_uuid(&opaque), "another value becomes a UUID: {opaque}");
    assert_eq!(a.upstream_value(""), "", "empty stays empty");
}

#[test]
fn prompt_cache_key_and_the_metadata_ids_are_the_accounts() {
    let a = account("acct-a", &IdentityKey::random());
    let turn_metadata = json!({"installation_id": "client-install", "session_id": SESSION, "thread_id": SESSION,
                               "turn_id": "turn-1", "window_number": 0, "sandbox": "seatbelt"})
    .to_string();
    let body = Bytes::from(
        serde_json::to_vec(&json!({
            "model": "gpt-5.4", "stream": true, "store": false, "input": [], "prompt_cache_key": SESSION,
            "client_metadata": {"x-codex-installation-id": "client-install", "session_id": SESSION,
                                "thread_id": SESSION, "x-codex-window-id": format!("{SESSION}:0"),
                                "x-codex-turn-metadata": turn_metadata, "originator": "codex_exec"},
        }))
        .expect("json"),
    );
    let view = RequestBody::parse(&body).expect("valid");
    let sent: Value =
        serde_json::from_slice(&Transport::backend_body(&body, &view, "gpt-5.4", &a).into_contiguous()).expect("json");
    let session = a.upstream_value(SESSION);
    assert_eq!(sent["prompt_cache_key"], session.as_str());
    let metadata = &sent["client_metadata"];
    assert_eq!(metadata["session_id"], session.as_str());
    assert_eq!(metadata["thread_id"], session.as_str(), "equal client values stay equal upstream");
    assert_eq!(metadata["x-codex-window-id"], format!("{session}:0"));
    assert_eq!(metadata["x-codex-installation-id"], a.installation_id.as_str());
    assert_eq!(metadata["originator"], "codex_exec", "other members are kept");
    let inner: Value = serde_json::from_str(metadata["x-codex-turn-metadata"].as_str().expect("text")).expect("json");
    assert_eq!(
        inner,
        json!({"installation_id": a.installation_id, "session_id": session, "thread_id": session,
               "turn_id": a.upstream_value("turn-1"), "window_number": 0, "sandbox": "seatbelt"})
    );
    let keys: Vec<&String> = metadata.as_object().expect("object").keys().collect();
    assert_eq!(keys.first().map(|k| k.as_str()), Some("x-codex-installation-id"), "member order kept");
}

#[test]
fn identifier_headers_are_the_accounts_as_the_client_spelled_them() {
    let a = account("acct-a", &IdentityKey::random());
    let session = a.upstream_value(SESSION);
    for spelling in ["session-id", "session_id"] {
        let mut headers = http::HeaderMap::new();
        for (name, value) in [
            (spelling, SESSION.to_owned()),
            ("thread-id", SESSION.to_owned()),
            ("x-client-request-id", SESSION.to_owned()),
            ("x-codex-window-id", format!("{SESSION}:1")),
            ("x-codex-turn-state", "ts_server_token".to_owned()),
            ("x-codex-beta-features", "a,b".to_owned()),
        ] {
            headers.insert(http::HeaderName::from_static(name), value.parse().expect("value"));
        }
        a.edit_headers(&mut headers);
        assert_eq!(headers[spelling], session.as_str(), "{spelling}");
        assert_eq!(headers.len(), 6, "the client's spelling only: {headers:?}");
        assert_eq!(headers["thread-id"], session.as_str());
        assert_eq!(headers["x-client-request-id"], session.as_str());
        assert_eq!(headers["x-codex-window-id"], format!("{session}:1").as_str());
        assert_eq!(headers["x-codex-turn-state"], "ts_server_token", "the upstream's own token passes");
        assert_eq!(headers["x-codex-beta-features"], "a,b");
    }
}

#[test]
fn a_body_without_identifiers_is_left_as_it_came() {
    let a = account("acct-a", &IdentityKey::random());
    let body = Bytes::from_static(br#"{"model":"gpt-5.4","stream":true,"store":false,"input":[]}"#);
    let view = RequestBody::parse(&body).expect("valid");
    let sent = Transport::backend_body(&body, &view, "gpt-5.4", &a);
    assert_eq!(sent.parts().len(), 1);
    assert_eq!(sent.parts()[0].as_ptr(), body.as_ptr());
}

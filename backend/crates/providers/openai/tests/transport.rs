//! The body sent to the Codex backend (`transport.rs`): the controlled edits, and no copy of
//! the client's body.

use bytes::Bytes;
use gateway_protocol::request::RequestBody;
use provider_openai::identity::{AccountIdentity, IdentityKey, derived_installation_id};
use provider_openai::transport::Transport;
use serde_json::{Value, json};

fn identity() -> AccountIdentity {
    AccountIdentity::from_parts(None, "acct-upstream-1", &IdentityKey::derive(b"k1:test"))
}

fn inside(part: &Bytes, body: &Bytes) -> bool {
    let (start, end) = (body.as_ptr() as usize, body.as_ptr() as usize + body.len());
    let at = part.as_ptr() as usize;
    at >= start && at + part.len() <= end
}

#[test]
fn a_body_already_in_the_backend_form_is_forwarded_as_it_came() {
    let body = Bytes::from_static(br#"{"model":"gpt-5.4","stream":true,"store":false,"input":[]}"#);
    let view = RequestBody::parse(&body).expect("valid");
    let sent = Transport::backend_body(&body, &view, "gpt-5.4", &identity());
    assert_eq!(sent.parts().len(), 1);
    assert_eq!(sent.parts()[0].as_ptr(), body.as_ptr(), "the client's bytes, not a copy");
}

#[test]
fn an_sdk_call_is_edited_without_copying_its_input() {
    let text = "y".repeat(1 << 20);
    let body = Bytes::from(
        serde_json::to_vec(&json!({"model": "gpt-5.4", "input": text, "temperature": 0.5, "top_p": 1})).expect("json"),
    );
    let view = RequestBody::parse(&body).expect("valid");
    let sent = Transport::backend_body(&body, &view, "gpt-5.4", &identity());
    let new_bytes: usize = sent.parts().iter().filter(|p| !inside(p, &body)).map(Bytes::len).sum();
    assert!(new_bytes < 200, "only the edits' own bytes are new: {new_bytes}");
    let value: Value = serde_json::from_slice(&sent.into_contiguous()).expect("valid JSON");
    assert_eq!(
        value,
        json!({"model": "gpt-5.4",
               "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}],
               "stream": true, "store": false})
    );
}

#[test]
fn the_client_installation_id_is_replaced_by_the_accounts() {
    let body = Bytes::from_static(
        br#"{"model":"gpt-5.4","stream":true,"store":false,"input":[],"client_metadata":{"x-codex-installation-id":"client-install","originator":"codex_exec"}}"#,
    );
    let view = RequestBody::parse(&body).expect("valid");
    let account = identity();
    let sent: Value =
        serde_json::from_slice(&Transport::backend_body(&body, &view, "gpt-5.4", &account).into_contiguous())
            .expect("json");
    assert_eq!(
        sent["client_metadata"],
        json!({"x-codex-installation-id": account.installation_id, "originator": "codex_exec"}),
        "only the installation id changes, in place"
    );
    let other = AccountIdentity::from_parts(None, "acct-upstream-2", &IdentityKey::random());
    assert_ne!(other.installation_id, account.installation_id, "each account has its own");
    assert_eq!(derived_installation_id("acct-upstream-1"), account.installation_id, "stable");
    assert!(uuid::Uuid::parse_str(&account.installation_id).is_ok());
    let stored = AccountIdentity::from_parts(Some("minted-by-oauth"), "acct-upstream-1", &IdentityKey::random());
    assert_eq!(stored.installation_id, "minted-by-oauth", "a stored id wins");
}

#[test]
fn a_body_without_client_metadata_is_not_touched_by_identity() {
    let body = Bytes::from_static(br#"{"model":"gpt-5.4","stream":true,"store":false,"input":[]}"#);
    let view = RequestBody::parse(&body).expect("valid");
    let sent = Transport::backend_body(&body, &view, "gpt-5.4", &identity());
    assert_eq!(sent.parts().len(), 1);
}

/// Codex 0.171 also names its installation id inside `x-codex-turn-metadata` (a JSON object in
/// a header and in a `client_metadata` member): it is the account's there too, members in order.
#[test]
fn the_installation_id_inside_the_turn_metadata_is_the_accounts_too() {
    let metadata = r#"{"installation_id":"client-install","session_id":"s1","window_number":0}"#;
    let body = Bytes::from(
        serde_json::to_vec(&json!({
            "model": "gpt-5.4", "stream": true, "store": false, "input": [],
            "client_metadata": {"session_id": "s1", "x-codex-installation-id": "client-install", "x-codex-turn-metadata": metadata},
        }))
        .expect("json"),
    );
    let view = RequestBody::parse(&body).expect("valid");
    let account = identity();
    let sent: Value =
        serde_json::from_slice(&Transport::backend_body(&body, &view, "gpt-5.4", &account).into_contiguous())
            .expect("json");
    let session = account.upstream_value("s1");
    let expected =
        format!(r#"{{"installation_id":"{}","session_id":"{session}","window_number":0}}"#, account.installation_id);
    assert_eq!(sent["client_metadata"]["x-codex-turn-metadata"], expected.as_str(), "rewritten in place, order kept");
    assert_eq!(sent["client_metadata"]["x-codex-installation-id"], account.installation_id.as_str());
    assert_eq!(sent["client_metadata"]["session_id"], session.as_str());

    let mut headers = http::HeaderMap::new();
    headers.insert("x-codex-turn-metadata", http::HeaderValue::from_static(metadata));
    headers.insert("session-id", http::HeaderValue::from_static("s1"));
    account.edit_headers(&mut headers);
    assert_eq!(headers["x-codex-turn-metadata"], expected.as_str());
    assert!(!headers.contains_key("x-codex-installation-id"), "a header the client did not send is not added");
    assert_eq!(headers["session-id"], session.as_str());
}

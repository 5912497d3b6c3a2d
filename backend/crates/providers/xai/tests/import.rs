//! Import formats: the Grok CLI `auth.json`, bundles and token objects; API keys refused.

use provider_xai::import::{ImportError, ParsedEntry, parse};
use secrecy::ExposeSecret;

fn ready(input: &str) -> Vec<provider_xai::credential::XaiCredential> {
    parse(input.as_bytes())
        .expect("parsed")
        .into_iter()
        .map(|(_, entry)| match entry {
            ParsedEntry::Ready(credential) => *credential,
            ParsedEntry::RefreshOnly(_) => panic!("ready expected"),
        })
        .collect()
}

#[test]
fn the_grok_cli_auth_file() {
    let file = r#"{"https://auth.x.ai::b1a00492-073a-47ea-816f-4c329264a828": {
        "key": "at-1", "auth_mode": "oidc", "refresh_token": "rt-1", "expires_at": 1900000000000,
        "create_time": "2026-01-01T00:00:00Z", "user_id": "user-1", "email": "a@b.io", "team_id": "team-1",
        "oidc_issuer": "https://auth.x.ai", "oidc_client_id": "b1a00492-073a-47ea-816f-4c329264a828"}}"#;
    let credentials = ready(file);
    assert_eq!(credentials.len(), 1);
    let c = &credentials[0];
    assert_eq!(c.access_token.expose_secret(), "at-1");
    assert_eq!(c.refresh_token.as_ref().map(|t| t.expose_secret().to_owned()).as_deref(), Some("rt-1"));
    assert_eq!(c.expires_at, Some(1_900_000_000), "milliseconds read as seconds");
    assert_eq!(c.user_id.as_deref(), Some("user-1"));
    assert_eq!(c.team_id.as_deref(), Some("team-1"));
}

#[test]
fn bundles_arrays_nested_tokens_and_refresh_only_entries() {
    let input = r#"{"accounts": [
        {"accessToken": "at-2", "refreshToken": "rt-2", "sub": "user-2", "expires_at": "2030-01-01T00:00:00Z"},
        {"credentials": {"at": "at-3", "rt": "rt-3"}, "user_id": "user-3"},
        {"refresh_token": "rt-4"}
    ]}"#;
    let entries = parse(input.as_bytes()).expect("parsed");
    assert_eq!(entries.len(), 3);
    assert!(matches!(&entries[2].1, ParsedEntry::RefreshOnly(_)));
    let ParsedEntry::Ready(second) = &entries[1].1 else { panic!("ready") };
    assert_eq!(second.access_token.expose_secret(), "at-3");
    let ParsedEntry::Ready(first) = &entries[0].1 else { panic!("ready") };
    assert_eq!(first.expires_at, Some(1_893_456_000));
}

#[test]
fn api_keys_and_garbage_are_refused_without_echoing_tokens() {
    let error = parse(br#"{"api_key": "xai-secret-123"}"#).err().expect("refused");
    assert!(matches!(error, ImportError::Entry { entry: 1, .. }));
    assert!(!error.to_string().contains("xai-secret-123"));
    let bare_key = parse(br#"{"access_token": "xai-secret-456"}"#).err().expect("a bare API key is refused");
    assert!(!bare_key.to_string().contains("xai-secret-456"));
    assert_eq!(parse(b"  ").err(), Some(ImportError::Empty));
    assert!(parse(b"not json").is_err());
    assert!(parse(br#"[{"email": "a@b.io"}]"#).is_err());
}

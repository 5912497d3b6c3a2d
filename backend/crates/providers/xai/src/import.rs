//! Credential import: the Grok CLI `~/.grok/auth.json`, a Switchboard export bundle, and
//! per-account token objects (PROTOCOL G.2, H.9).
//!
//! Accepted inputs (detected, not declared):
//! - the Grok CLI file: an object keyed `"<issuer>::<client_id>"` whose values hold `key` (the
//!   access token), `auth_mode: "oidc"`, `refresh_token`, `expires_at`, `user_id`, `email`,
//!   `team_id`;
//! - a bundle `{"format":"switchboard.accounts.v1","accounts":[…]}`, `{"accounts":[…]}`, an
//!   array, or one object, each entry with `access_token|accessToken|at`,
//!   `refresh_token|refreshToken|rt` (optionally inside `credentials` or `token`), `expires_at`,
//!   `user_id|sub`, `email`, `team_id`;
//! - an entry with only a refresh token is exchanged once at import.
//!
//! API-key entries (`api_key`, `auth_mode: "api_key"`) are refused: this provider speaks the
//! subscription OAuth path only. Nothing here sends anything upstream.

use secrecy::SecretString;
use serde_json::{Map, Value};

use crate::credential::XaiCredential;

/// The bundle format written by export.
pub const BUNDLE_FORMAT: &str = "switchboard.accounts.v1";
/// Most entries one import takes.
pub const MAX_ENTRIES: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("the input is empty")]
    Empty,
    #[error("entry {entry}: {reason}")]
    Entry { entry: usize, reason: String },
    #[error("the input is not a known xAI credential format: {0}")]
    Unrecognised(String),
}

/// One entry of the input, read without sending anything upstream.
pub enum ParsedEntry {
    Ready(Box<XaiCredential>),
    RefreshOnly(SecretString),
}

/// Reads every entry of `input`, numbered from 1.
pub fn parse(input: &[u8]) -> Result<Vec<(usize, ParsedEntry)>, ImportError> {
    let text = std::str::from_utf8(input).map_err(|_| ImportError::Unrecognised("not UTF-8".to_owned()))?;
    if text.trim().is_empty() {
        return Err(ImportError::Empty);
    }
    let value: Value =
        serde_json::from_str(text).map_err(|_| ImportError::Unrecognised("not a JSON document".to_owned()))?;
    let entries = entries_of(value)?;
    if entries.len() > MAX_ENTRIES {
        return Err(ImportError::Unrecognised(format!("more than {MAX_ENTRIES} entries")));
    }
    entries
        .into_iter()
        .enumerate()
        .map(|(index, entry)| {
            let number = index + 1;
            decode_entry(&entry)
                .map(|parsed| (number, parsed))
                .map_err(|reason| ImportError::Entry { entry: number, reason: reason.to_owned() })
        })
        .collect()
}

/// The entry objects of the input.
fn entries_of(value: Value) -> Result<Vec<Map<String, Value>>, ImportError> {
    let objects = |items: Vec<Value>| {
        items
            .into_iter()
            .map(|item| match item {
                Value::Object(map) => Ok(map),
                _ => Err(ImportError::Unrecognised("an entry is not an object".to_owned())),
            })
            .collect::<Result<Vec<_>, _>>()
    };
    match value {
        Value::Array(items) => objects(items),
        Value::Object(mut map) => {
            if let Some(Value::Array(items)) = map.remove("accounts") {
                return objects(items);
            }
            if is_grok_cli_file(&map) {
                return objects(map.into_iter().map(|(_, v)| v).collect());
            }
            Ok(vec![map])
        }
        _ => Err(ImportError::Unrecognised("the top level must be an object or an array".to_owned())),
    }
}

/// The Grok CLI file: every key is `"<issuer>::<client id>"` with an object value.
fn is_grok_cli_file(map: &Map<String, Value>) -> bool {
    !map.is_empty() && map.iter().all(|(key, value)| key.contains("::") && value.is_object())
}

fn text<'a>(map: &'a Map<String, Value>, names: &[&str]) -> Option<&'a str> {
    names.iter().find_map(|name| map.get(*name).and_then(Value::as_str)).filter(|v| !v.trim().is_empty())
}

fn decode_entry(entry: &Map<String, Value>) -> Result<ParsedEntry, &'static str> {
    let mode = text(entry, &["auth_mode", "authMode"]);
    if entry.contains_key("api_key") || entry.contains_key("apiKey") || mode == Some("api_key") {
        return Err("an API-key entry; only subscription (OAuth) credentials can be imported");
    }
    let nested = ["credentials", "token"].iter().find_map(|name| entry.get(*name).and_then(Value::as_object));
    let lookup = |names: &[&str]| text(entry, names).or_else(|| nested.and_then(|n| text(n, names)));
    let access = lookup(&["access_token", "accessToken", "at", "key"]);
    let refresh = lookup(&["refresh_token", "refreshToken", "rt"]);
    let Some(access) = access else {
        return match refresh {
            Some(refresh) => Ok(ParsedEntry::RefreshOnly(SecretString::from(refresh.to_owned()))),
            None => Err("no access or refresh token"),
        };
    };
    if access.starts_with("xai-") && mode != Some("oidc") && refresh.is_none() {
        return Err("an xAI API key; only subscription (OAuth) credentials can be imported");
    }
    let expires_at = entry
        .get("expires_at")
        .or_else(|| entry.get("expiresAt"))
        .or_else(|| nested.and_then(|n| n.get("expires_at")))
        .and_then(expiry);
    Ok(ParsedEntry::Ready(Box::new(XaiCredential {
        access_token: SecretString::from(access.to_owned()),
        refresh_token: refresh.map(|r| SecretString::from(r.to_owned())),
        expires_at,
        user_id: lookup(&["user_id", "userId", "sub"]).map(str::to_owned),
        email: lookup(&["email"]).map(str::to_owned),
        team_id: lookup(&["team_id", "teamId"]).map(str::to_owned),
    })))
}

/// Unix seconds, unix milliseconds or an RFC 3339 time.
fn expiry(value: &Value) -> Option<i64> {
    if let Some(number) = value.as_i64() {
        return Some(if number > 100_000_000_000 { number / 1000 } else { number });
    }
    let text = value.as_str()?;
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok().map(|t| t.unix_timestamp())
}

/// The export bundle entry of one credential (re-importing it is idempotent).
pub fn bundle_entry(credential: &XaiCredential) -> Value {
    use secrecy::ExposeSecret;
    serde_json::json!({
        "access_token": credential.access_token.expose_secret(),
        "refresh_token": credential.refresh_token.as_ref().map(|t| t.expose_secret().to_owned()),
        "expires_at": credential.expires_at,
        "user_id": credential.user_id,
        "email": credential.email,
        "team_id": credential.team_id,
    })
}

//! Credential import: one pipeline, many decoders.
//!
//! Accepted inputs (detected, not declared):
//! - a Codex `auth.json` (`{"tokens":{"id_token","access_token","refresh_token","account_id"}}`);
//! - a Switchboard export bundle (`{"format":"switchboard.accounts.v1","accounts":[…]}`), each
//!   entry carrying the tokens like an `auth.json`;
//! - a CLIProxyAPI-style per-account file (`{"type":"codex","access_token",…}`), alone or in an
//!   array;
//! - lines of tokens: a JWT is an access token, anything else a refresh token (exchanged at
//!   import, so the account starts with a fresh, rotated pair).
//!
//! [`parse`] reads the input and sends nothing (a dry run stops there); [`exchange`] spends one
//! refresh token, and is called once per refresh-only entry by the import.
//!
//! Identity comes only from token claims; a credential without them is imported as
//! `unverified`.

use gateway_core::credential_refresh::TokenRefreshError;
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use crate::claims::Identity;
use crate::credential::OpenAiCredential;
use crate::refresh::Refresher;

/// One decoded credential, ready to store.
#[derive(Debug, Clone)]
pub struct DecodedCredential {
    pub credential: OpenAiCredential,
    pub identity: Identity,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("the input is empty")]
    Empty,
    #[error("entry {entry}: {reason}")]
    Entry { entry: usize, reason: String },
    #[error("the input is not a known credential format: {0}")]
    Unrecognised(String),
}

/// The bundle format written by export.
pub const BUNDLE_FORMAT: &str = "switchboard.accounts.v1";

/// One entry of the input, read without sending anything upstream.
pub enum ParsedEntry {
    /// Tokens stored as they are.
    Ready(Box<DecodedCredential>),
    /// A refresh token alone: [`exchange`] turns it into a fresh pair (and spends it).
    RefreshOnly(SecretString),
}

/// A credential entry as written in the input.
enum Raw {
    Tokens { access: String, refresh: Option<String>, id: Option<String>, account_id: Option<String> },
    RefreshOnly(String),
}

/// Reads every entry of `input`, numbered from 1; nothing is exchanged.
pub fn parse(input: &[u8]) -> Result<Vec<(usize, ParsedEntry)>, ImportError> {
    let text = std::str::from_utf8(input).map_err(|_| ImportError::Unrecognised("not UTF-8 text".to_owned()))?;
    let text = text.trim();
    if text.is_empty() {
        return Err(ImportError::Empty);
    }
    let raws = if text.starts_with('{') || text.starts_with('[') {
        // serde_json's messages name positions, never the values: safe to show.
        let value: Value =
            serde_json::from_str(text).map_err(|e| ImportError::Unrecognised(format!("invalid JSON: {e}")))?;
        json_entries(&value)?
    } else {
        text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(line_entry).collect()
    };
    Ok(raws
        .into_iter()
        .enumerate()
        .map(|(index, raw)| {
            let entry = match raw {
                Raw::Tokens { access, refresh, id, account_id } => {
                    ParsedEntry::Ready(Box::new(finish(OpenAiCredential {
                        access_token: SecretString::from(access),
                        refresh_token: refresh.filter(|t| !t.is_empty()).map(SecretString::from),
                        id_token: id.filter(|t| !t.is_empty()).map(SecretString::from),
                        account_id,
                        expires_at: None,
                        installation_id: None,
                        last_refresh: None,
                    })))
                }
                Raw::RefreshOnly(refresh) => ParsedEntry::RefreshOnly(SecretString::from(refresh)),
            };
            (index + 1, entry)
        })
        .collect())
}

/// Exchanges one refresh token for a fresh pair (one token call; the token is spent).
pub async fn exchange(
    refresh_token: &SecretString,
    refresher: &Refresher,
    now_unix: i64,
) -> Result<DecodedCredential, TokenRefreshError> {
    let seed = OpenAiCredential {
        access_token: SecretString::from(String::new()),
        refresh_token: Some(refresh_token.clone()),
        id_token: None,
        account_id: None,
        expires_at: None,
        installation_id: None,
        last_refresh: None,
    };
    refresher.refresh(&seed, now_unix).await.map(finish)
}

/// Fills identity-derived fields.
fn finish(mut credential: OpenAiCredential) -> DecodedCredential {
    let identity = credential.identity();
    credential.expires_at = identity.expires_at;
    if credential.account_id.is_none() {
        credential.account_id = identity.account_id.clone();
    }
    DecodedCredential { credential, identity }
}

fn line_entry(line: &str) -> Raw {
    if line.split('.').count() == 3 && line.starts_with("ey") {
        Raw::Tokens { access: line.to_owned(), refresh: None, id: None, account_id: None }
    } else {
        Raw::RefreshOnly(line.to_owned())
    }
}

fn json_entries(value: &Value) -> Result<Vec<Raw>, ImportError> {
    if let Some(accounts) = value.get("accounts").and_then(Value::as_array) {
        if value.get("format").and_then(Value::as_str).is_some_and(|f| f != BUNDLE_FORMAT) {
            return Err(ImportError::Unrecognised("unknown bundle format".to_owned()));
        }
        return accounts.iter().enumerate().map(|(i, entry)| json_entry(entry, i + 1)).collect();
    }
    match value {
        Value::Array(entries) => entries.iter().enumerate().map(|(i, entry)| json_entry(entry, i + 1)).collect(),
        entry => Ok(vec![json_entry(entry, 1)?]),
    }
}

fn text(value: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| value.get(*k).and_then(Value::as_str)).map(str::to_owned).filter(|s| !s.is_empty())
}

fn json_entry(entry: &Value, index: usize) -> Result<Raw, ImportError> {
    // auth.json and bundle entries nest the tokens; CLIProxyAPI files keep them at the top.
    let tokens = entry.get("tokens").filter(|t| t.is_object()).unwrap_or(entry);
    if let Some(kind) = entry.get("type").and_then(Value::as_str)
        && kind != "codex"
    {
        return Err(ImportError::Entry {
            entry: index,
            reason: format!("type `{kind}` is not an OpenAI/Codex credential"),
        });
    }
    let access = text(tokens, &["access_token", "accessToken"]);
    let refresh = text(tokens, &["refresh_token", "refreshToken"]);
    let id = text(tokens, &["id_token", "idToken"]);
    let account_id = text(tokens, &["account_id", "accountId"]);
    match (access, refresh) {
        (Some(access), refresh) => Ok(Raw::Tokens { access, refresh, id, account_id }),
        (None, Some(refresh)) => Ok(Raw::RefreshOnly(refresh)),
        (None, None) => {
            let api_key = entry.get("OPENAI_API_KEY").and_then(Value::as_str).is_some_and(|k| !k.is_empty());
            Err(ImportError::Entry {
                entry: index,
                reason: if api_key {
                    "an API-key auth.json has no ChatGPT tokens".to_owned()
                } else {
                    "no access_token or refresh_token".to_owned()
                },
            })
        }
    }
}

/// One export bundle entry (the inverse of the decoders: re-importing it is idempotent).
pub fn bundle_entry(credential: &OpenAiCredential, email: Option<&str>) -> Value {
    serde_json::json!({
        "provider": "openai",
        "email": email,
        "tokens": {
            "id_token": credential.id_token.as_ref().map(|t| t.expose_secret().to_owned()),
            "access_token": credential.access_token.expose_secret(),
            "refresh_token": credential.refresh_token.as_ref().map(|t| t.expose_secret().to_owned()),
            "account_id": credential.account_id,
        },
    })
}

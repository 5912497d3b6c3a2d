//! Refresh-token exchange at `{auth}/oauth/token` (JSON body, as Codex sends it).
//!
//! Refresh tokens rotate and are single-use: the caller must persist the returned credential
//! before using it, and must never retry with the spent token.

use gateway_core::credential_refresh::TokenRefreshError;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::Value;

use gateway_transport::{HttpClient, HttpRequest, ProxyUrl};

use crate::credential::OpenAiCredential;
use crate::request_profile::ProfileHolder;

/// Codes that end a credential at once (PROTOCOL §A.4).
pub const TERMINAL_CODES: &[&str] =
    &["refresh_token_expired", "refresh_token_reused", "refresh_token_invalidated", "invalid_grant"];

#[derive(Deserialize)]
struct TokenAnswer {
    #[serde(default)]
    access_token: Option<String>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    id_token: Option<String>,
}

#[derive(Clone)]
pub struct Refresher {
    client: HttpClient,
    /// Codex's headers (`originator`, `User-Agent`) go on the refresh too.
    profile: ProfileHolder,
    token_url: String,
    client_id: String,
    timeout: Duration,
}

impl Refresher {
    pub fn new(client: HttpClient, profile: ProfileHolder, auth_url: &str, client_id: &str, timeout: Duration) -> Self {
        Self { client, profile, token_url: format!("{auth_url}/oauth/token"), client_id: client_id.to_owned(), timeout }
    }

    /// Exchanges the refresh token; returns the rotated credential (tokens the answer left out
    /// are kept).
    pub async fn refresh(
        &self,
        current: &OpenAiCredential,
        now_unix: i64,
    ) -> Result<OpenAiCredential, TokenRefreshError> {
        self.refresh_via(current, now_unix, None).await
    }

    /// [`Refresher::refresh`] through `proxy` (the account's egress proxy), or directly.
    pub async fn refresh_via(
        &self,
        current: &OpenAiCredential,
        now_unix: i64,
        proxy: Option<&ProxyUrl>,
    ) -> Result<OpenAiCredential, TokenRefreshError> {
        let refresh_token = current.refresh_token.as_ref().ok_or(TokenRefreshError::NoRefreshToken)?;
        let body = serde_json::json!({
            "client_id": self.client_id,
            "grant_type": "refresh_token",
            "refresh_token": refresh_token.expose_secret(),
        });
        let request = HttpRequest::post(&self.token_url)
            .map_err(|_| TokenRefreshError::Transient("the token endpoint is not a URL".to_owned()))?;
        let request = self.profile.current().identify(request).json(&body);
        let fetched = match self.client.fetch(request, proxy, self.timeout, 256 * 1024).await {
            Err(gateway_transport::FetchError::Timeout) => {
                return Err(TokenRefreshError::Transient("the token endpoint did not answer in time".to_owned()));
            }
            Err(gateway_transport::FetchError::Send(_)) => {
                return Err(TokenRefreshError::Transient("the token endpoint is unreachable".to_owned()));
            }
            Err(gateway_transport::FetchError::Body(_)) => {
                return Err(TokenRefreshError::Transient("the token answer broke".to_owned()));
            }
            Ok(fetched) => fetched,
        };
        let (status, bytes) = (fetched.status, fetched.body);
        if !(200..300).contains(&status)
            && status != 401
            && gateway_transport::error_source(&fetched.headers, &bytes) != gateway_transport::ErrorSource::Origin
        {
            // The edge in front of the endpoint (a challenge, a block, an error page): about the
            // egress path, not the refresh token, which was never read.
            return Err(TokenRefreshError::Challenged { status });
        }
        if !(200..300).contains(&status) {
            let code = error_code(&bytes);
            return Err(match code {
                Some(code) if TERMINAL_CODES.contains(&code.as_str()) => TokenRefreshError::Permanent { code },
                _ if status == 401 => {
                    TokenRefreshError::Permanent { code: code.unwrap_or_else(|| "unauthorized".to_owned()) }
                }
                Some(code) => TokenRefreshError::Transient(format!("token endpoint {status} {code}")),
                None => TokenRefreshError::Transient(format!("token endpoint {status}")),
            });
        }
        let answer: TokenAnswer = serde_json::from_slice(&bytes)
            .map_err(|_| TokenRefreshError::Transient("malformed token answer".to_owned()))?;
        let Some(access_token) = answer.access_token.filter(|t| !t.is_empty()) else {
            return Err(TokenRefreshError::Transient("the token answer has no access token".to_owned()));
        };
        let mut next = current.clone();
        next.access_token = SecretString::from(access_token);
        if let Some(rt) = answer.refresh_token.filter(|t| !t.is_empty()) {
            next.refresh_token = Some(SecretString::from(rt));
        }
        if let Some(id) = answer.id_token.filter(|t| !t.is_empty()) {
            next.id_token = Some(SecretString::from(id));
        }
        let identity = next.identity();
        next.expires_at = identity.expires_at;
        if next.account_id.is_none() {
            next.account_id = identity.account_id;
        }
        next.last_refresh = Some(now_unix);
        Ok(next)
    }
}

/// The error code of a token endpoint answer: `error.code`, `error` (string) or `code`.
fn error_code(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let code = match value.get("error") {
        Some(Value::Object(e)) => e.get("code").and_then(Value::as_str),
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    }
    .or_else(|| value.get("code").and_then(Value::as_str))?;
    Some(code.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').take(64).collect())
}

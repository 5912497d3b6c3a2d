//! The token endpoint (`{issuer}/oauth2/token`, form-encoded) for refresh, and userinfo
//! (`{issuer}/oauth2/userinfo`) for identity (PROTOCOL G.2, H.9).
//!
//! Refresh tokens may rotate; an answer without one keeps the old one. The refresh answer's
//! `id_token` is discarded. The caller (the core refresher) stores the result before use.

use gateway_core::credential_refresh::TokenRefreshError;
use std::time::Duration;

use gateway_transport::{FetchError, HttpClient, HttpRequest, ProxyUrl};
use http::{HeaderName, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::Value;

use crate::credential::XaiCredential;
use crate::version_check::ClientVersion;

/// Codes that end a refresh token at once.
pub const TERMINAL_CODES: &[&str] = &["invalid_grant", "invalid_client", "unauthorized_client"];
const MAX_ANSWER: usize = 256 * 1024;

/// A token endpoint's success answer.
#[derive(Deserialize)]
pub(crate) struct TokenAnswer {
    #[serde(default)]
    pub access_token: Option<String>,
    #[serde(default)]
    pub refresh_token: Option<String>,
    #[serde(default)]
    pub id_token: Option<String>,
    #[serde(default)]
    pub expires_in: Option<i64>,
}

/// A token endpoint's refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TokenRefusal {
    pub status: Option<u16>,
    pub code: Option<String>,
    pub message: String,
}

/// Who a token belongs to, from userinfo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInfo {
    pub sub: String,
    pub email: Option<String>,
}

#[derive(Clone)]
pub struct Refresher {
    http: HttpClient,
    token_url: String,
    userinfo_url: String,
    client_id: String,
    version: ClientVersion,
    timeout: Duration,
    /// The egress proxy of the account this refresher works for ([`Refresher::via`]).
    proxy: Option<ProxyUrl>,
}

impl Refresher {
    pub fn new(http: HttpClient, issuer: &str, client_id: &str, version: ClientVersion, timeout: Duration) -> Self {
        Self {
            http,
            token_url: format!("{issuer}/oauth2/token"),
            userinfo_url: format!("{issuer}/oauth2/userinfo"),
            client_id: client_id.to_owned(),
            version,
            timeout,
            proxy: None,
        }
    }

    /// This refresher with every call through `proxy` (an account's egress proxy).
    pub fn via(&self, proxy: Option<ProxyUrl>) -> Self {
        Self { proxy, ..self.clone() }
    }

    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// POSTs a form to a token endpoint (`url`, else the issuer's): the success answer, or the
    /// refusal (status and code; no status when nothing usable came back).
    pub(crate) async fn post_token(
        &self,
        url: Option<&str>,
        form: &[(&str, &str)],
    ) -> Result<TokenAnswer, TokenRefusal> {
        let unavailable = |message: &str| TokenRefusal { status: None, code: None, message: message.to_owned() };
        let encoded = serde_urlencoded::to_string(form).map_err(|_| unavailable("the form cannot be encoded"))?;
        let request = HttpRequest::post(url.unwrap_or(&self.token_url))
            .map_err(|_| unavailable("the token endpoint is not a URL"))?
            .form(encoded)
            .header(http::header::ACCEPT, HeaderValue::from_static("application/json"));
        let request = match HeaderValue::from_str(&self.version.current()) {
            Ok(version) => request.header(HeaderName::from_static("x-grok-client-version"), version),
            Err(_) => request,
        };
        let fetched = self
            .http
            .fetch(request, self.proxy.as_ref(), self.timeout, MAX_ANSWER)
            .await
            .map_err(|e| unavailable(&transient(e).to_string()))?;
        if !(200..300).contains(&fetched.status) {
            let code = error_code(&fetched.body);
            let message = format!("token endpoint {} {}", fetched.status, code.as_deref().unwrap_or_default());
            return Err(TokenRefusal { status: Some(fetched.status), code, message });
        }
        serde_json::from_slice(&fetched.body).map_err(|_| unavailable("malformed token answer"))
    }

    async fn token_request(&self, form: &[(&str, &str)]) -> Result<TokenAnswer, TokenRefreshError> {
        self.post_token(None, form).await.map_err(|refusal| match refusal.code {
            Some(code) if TERMINAL_CODES.contains(&code.as_str()) => TokenRefreshError::Permanent { code },
            _ => TokenRefreshError::Transient(refusal.message),
        })
    }

    /// Exchanges the refresh token; returns the rotated credential.
    pub async fn refresh(&self, current: &XaiCredential, now_unix: i64) -> Result<XaiCredential, TokenRefreshError> {
        let refresh_token = current.refresh_token.as_ref().ok_or(TokenRefreshError::NoRefreshToken)?;
        let answer = self
            .token_request(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh_token.expose_secret()),
                ("client_id", &self.client_id),
            ])
            .await?;
        let access = answer
            .access_token
            .filter(|t| !t.is_empty())
            .ok_or_else(|| TokenRefreshError::Transient("the token answer has no access token".to_owned()))?;
        let mut next = current.clone();
        next.access_token = SecretString::from(access);
        if let Some(rt) = answer.refresh_token.filter(|t| !t.is_empty()) {
            next.refresh_token = Some(SecretString::from(rt));
        }
        next.expires_at = answer.expires_in.map(|seconds| now_unix + seconds);
        Ok(next)
    }

    /// `GET {issuer}/oauth2/userinfo` with the access token.
    pub async fn userinfo(&self, access_token: &SecretString) -> Result<UserInfo, TokenRefreshError> {
        let bearer = HeaderValue::from_str(&format!("Bearer {}", access_token.expose_secret()))
            .map_err(|_| TokenRefreshError::Permanent { code: "malformed_access_token".to_owned() })?;
        let request = HttpRequest::get(&self.userinfo_url)
            .map_err(|_| TokenRefreshError::Transient("the userinfo endpoint is not a URL".to_owned()))?
            .header(http::header::AUTHORIZATION, bearer);
        let fetched =
            self.http.fetch(request, self.proxy.as_ref(), self.timeout, MAX_ANSWER).await.map_err(transient)?;
        if fetched.status == 401 || fetched.status == 403 {
            return Err(TokenRefreshError::Permanent { code: "userinfo_unauthorized".to_owned() });
        }
        if fetched.status != 200 {
            return Err(TokenRefreshError::Transient(format!("userinfo {}", fetched.status)));
        }
        let value: Value = serde_json::from_slice(&fetched.body)
            .map_err(|_| TokenRefreshError::Transient("malformed userinfo answer".to_owned()))?;
        let sub = value
            .get("sub")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| TokenRefreshError::Transient("userinfo has no sub".to_owned()))?;
        Ok(UserInfo { sub: sub.to_owned(), email: value.get("email").and_then(Value::as_str).map(str::to_owned) })
    }
}

fn transient(error: FetchError) -> TokenRefreshError {
    TokenRefreshError::Transient(match error {
        FetchError::Timeout => "the token endpoint did not answer in time".to_owned(),
        FetchError::Send(_) => "the token endpoint is unreachable".to_owned(),
        FetchError::Body(_) => "the token answer broke".to_owned(),
    })
}

/// `error` (string or object with `code`) or `code`.
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

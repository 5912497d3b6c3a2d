//! Authorization code → tokens (PROTOCOL §A.3): a form POST to `{issuer}/oauth/token`; the
//! answer must carry `id_token`, `access_token` and `refresh_token`.

use std::time::Duration;

use gateway_core::oauth_login::OAuthFailure;
use gateway_transport::{HttpClient, HttpRequest, ProxyUrl};
use secrecy::SecretString;
use serde::Deserialize;
use serde_json::Value;

use crate::credential::OpenAiCredential;
use crate::request_profile::RequestProfile;

#[derive(Deserialize)]
struct TokenAnswer {
    id_token: String,
    access_token: String,
    refresh_token: String,
}

/// One code exchange.
pub struct CodeExchange<'a> {
    pub client: &'a HttpClient,
    /// The login's egress proxy (`None`: direct).
    pub proxy: Option<&'a ProxyUrl>,
    pub issuer: &'a str,
    pub client_id: &'a str,
    pub profile: &'a RequestProfile,
    pub timeout: Duration,
}

impl CodeExchange<'_> {
    /// Exchanges `code`; the credential has tokens, account id and expiry from the claims.
    pub async fn exchange(
        &self,
        code: &str,
        redirect_uri: &str,
        verifier: &str,
        now_unix: i64,
    ) -> Result<OpenAiCredential, OAuthFailure> {
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("client_id", self.client_id),
            ("code_verifier", verifier),
        ];
        let request = HttpRequest::post(&format!("{}/oauth/token", self.issuer))
            .map_err(|_| OAuthFailure::Unavailable("the token endpoint is not a URL".into()))?;
        let request = self.profile.identify(request).form(serde_urlencoded_pairs(&form));
        let fetched = self
            .client
            .fetch(request, self.proxy, self.timeout, MAX_ANSWER)
            .await
            .map_err(|e| OAuthFailure::Unavailable(format!("the token endpoint: {e}")))?;
        let (status, body) = (fetched.status, fetched.body);
        if !(200..300).contains(&status) {
            let code = error_code(&body).unwrap_or_else(|| format!("http_{status}"));
            return Err(if status >= 500 || status == 429 {
                OAuthFailure::Unavailable(code)
            } else {
                OAuthFailure::Rejected(code)
            });
        }
        let answer: TokenAnswer = serde_json::from_slice(&body)
            .map_err(|_| OAuthFailure::Unavailable("the token answer lacks id, access or refresh token".into()))?;
        let mut credential = OpenAiCredential {
            access_token: SecretString::from(answer.access_token),
            refresh_token: Some(SecretString::from(answer.refresh_token)),
            id_token: Some(SecretString::from(answer.id_token)),
            account_id: None,
            expires_at: None,
            installation_id: None,
            last_refresh: Some(now_unix),
        };
        let identity = credential.identity();
        credential.account_id = identity.account_id;
        credential.expires_at = identity.expires_at;
        Ok(credential)
    }
}

/// `error` (string or `{code}`) or `code` of an error answer, as a short safe token.
/// Largest token endpoint answer read.
const MAX_ANSWER: usize = 256 * 1024;

/// `application/x-www-form-urlencoded` of `pairs`.
pub fn serde_urlencoded_pairs(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (name, value) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str(&crate::oauth::encode(name));
        out.push('=');
        out.push_str(&crate::oauth::encode(value));
    }
    out
}

pub fn error_code(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let code = match value.get("error") {
        Some(Value::Object(e)) => e.get("code").and_then(Value::as_str),
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    }
    .or_else(|| value.get("code").and_then(Value::as_str))?;
    Some(code.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').take(64).collect())
}

//! Device-code login (PROTOCOL §A.8): a user code from `/api/accounts/deviceauth/usercode`,
//! polling `/api/accounts/deviceauth/token` (403/404 = still pending) until it yields an
//! authorization code with a server-made PKCE pair, exchanged with
//! `redirect_uri = {issuer}/deviceauth/callback`.

use std::time::Duration;

use gateway_core::oauth_login::OAuthFailure;
use serde_json::{Value, json};

use crate::oauth::token_exchange::error_code;
use crate::request_profile::RequestProfile;

/// How long a user code lives upstream.
pub const DEVICE_CODE_LIFETIME: Duration = Duration::from_secs(15 * 60);
/// Poll interval when the upstream names none.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);

pub struct UserCode {
    pub device_auth_id: String,
    pub user_code: String,
    pub interval: Duration,
}

pub enum Poll {
    Pending,
    Approved { authorization_code: String, code_verifier: String },
}

pub struct DeviceEndpoints<'a> {
    pub client: &'a gateway_transport::HttpClient,
    /// The login's egress proxy (`None`: direct).
    pub proxy: Option<&'a gateway_transport::ProxyUrl>,
    pub issuer: &'a str,
    pub client_id: &'a str,
    pub profile: &'a RequestProfile,
    pub timeout: Duration,
}

impl DeviceEndpoints<'_> {
    async fn post(&self, path: &str, body: &Value) -> Result<(u16, Value, Vec<u8>), OAuthFailure> {
        let request = gateway_transport::HttpRequest::post(&format!("{}{path}", self.issuer))
            .map_err(|_| OAuthFailure::Unavailable("the device endpoint is not a URL".into()))?;
        let request = self.profile.identify(request).json(body);
        let fetched = self
            .client
            .fetch(request, self.proxy, self.timeout, 256 * 1024)
            .await
            .map_err(|e| OAuthFailure::Unavailable(format!("the device endpoint: {e}")))?;
        let (status, bytes) = (fetched.status, fetched.body);
        let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Ok((status, value, bytes.to_vec()))
    }

    pub fn verification_url(&self) -> String {
        format!("{}/codex/device", self.issuer)
    }

    pub fn callback_uri(&self) -> String {
        format!("{}/deviceauth/callback", self.issuer)
    }

    pub async fn user_code(&self) -> Result<UserCode, OAuthFailure> {
        let (status, value, _) =
            self.post("/api/accounts/deviceauth/usercode", &json!({"client_id": self.client_id})).await?;
        match status {
            200..=299 => {}
            404 => return Err(OAuthFailure::NotEnabled("device code login is not enabled".into())),
            500.. | 429 => return Err(OAuthFailure::Unavailable(format!("device endpoint {status}"))),
            _ => return Err(OAuthFailure::Rejected(format!("device endpoint {status}"))),
        }
        let text = |k: &str| value.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
        let device_auth_id = text("device_auth_id").ok_or_else(|| malformed("device_auth_id"))?;
        let user_code = text("user_code").or_else(|| text("usercode")).ok_or_else(|| malformed("user_code"))?;
        // Codex parses `interval` from a string; accept a number too.
        let interval = value
            .get("interval")
            .and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())))
            .map(|s| Duration::from_secs(s.clamp(1, 60)))
            .unwrap_or(DEFAULT_INTERVAL);
        Ok(UserCode { device_auth_id, user_code, interval })
    }

    pub async fn poll(&self, device_auth_id: &str, user_code: &str) -> Result<Poll, OAuthFailure> {
        let body = json!({"device_auth_id": device_auth_id, "user_code": user_code});
        let (status, value, raw) = self.post("/api/accounts/deviceauth/token", &body).await?;
        match status {
            200..=299 => {
                let text = |k: &str| value.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
                Ok(Poll::Approved {
                    authorization_code: text("authorization_code").ok_or_else(|| malformed("authorization_code"))?,
                    code_verifier: text("code_verifier").ok_or_else(|| malformed("code_verifier"))?,
                })
            }
            403 | 404 => Ok(Poll::Pending),
            410 => Err(OAuthFailure::Expired),
            500.. | 429 => Err(OAuthFailure::Unavailable(format!("device endpoint {status}"))),
            _ => {
                let code = error_code(&raw).unwrap_or_else(|| format!("http_{status}"));
                Err(match code.as_str() {
                    "access_denied" => OAuthFailure::Denied(code),
                    "expired_token" => OAuthFailure::Expired,
                    _ => OAuthFailure::Rejected(code),
                })
            }
        }
    }
}

fn malformed(field: &str) -> OAuthFailure {
    OAuthFailure::Unavailable(format!("the device answer has no {field}"))
}

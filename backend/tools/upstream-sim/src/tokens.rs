//! Token sets and unsigned JWTs (`alg: none`), as OpenAI and xAI issue them.
//!
//! Codex decodes JWT payloads without checking signatures (PROTOCOL A.6); the simulator's tokens
//! carry a dummy signature segment so three-part parsers accept them.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::account::{Account, Provider};
use crate::ids::{now_unix, rfc3339, token};

/// Tokens minted for one account, as a login or a refresh returns them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenSet {
    pub account_id: String,
    pub provider: Provider,
    pub access_token: String,
    pub refresh_token: String,
    pub id_token: String,
    pub expires_in: u64,
    /// Unix seconds when the access token expires.
    pub expires_at: u64,
}

impl TokenSet {
    /// A Codex `auth.json` (`$CODEX_HOME/auth.json`) holding these tokens (PROTOCOL A.7).
    pub fn codex_auth_json(&self) -> Value {
        json!({
            "auth_mode": "chatgpt",
            "OPENAI_API_KEY": null,
            "tokens": {
                "id_token": self.id_token,
                "access_token": self.access_token,
                "refresh_token": self.refresh_token,
                "account_id": self.account_id,
            },
            "last_refresh": rfc3339(now_unix()),
        })
    }
}

/// A scripted answer of the token endpoint to a refresh (per account).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RefreshOutcome {
    /// 401 `refresh_token_expired`.
    Expired,
    /// 401 `refresh_token_invalidated`.
    Invalidated,
    /// 401 `refresh_token_reused`.
    Reused,
    /// 400 `invalid_grant`.
    InvalidGrant,
    /// A 5xx with an OAuth-style `server_error` body.
    ServerError {
        #[serde(default = "default_server_status")]
        status: u16,
    },
    /// Answer normally after `delay_ms` (use a long delay to make the client time out).
    Delay { delay_ms: u64 },
    /// Cloudflare's managed challenge (`status` 403 by default; 429, 503), before the issuer
    /// sees the request: the refresh token is not used.
    Challenge {
        #[serde(default = "default_challenge_status")]
        status: u16,
    },
}

fn default_server_status() -> u16 {
    500
}

fn default_challenge_status() -> u16 {
    403
}

/// Server-side record of an access token.
#[derive(Debug, Clone)]
pub struct AccessRecord {
    pub account_id: String,
    pub expires_at: u64,
    pub revoked: bool,
}

/// Server-side state of a refresh token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshState {
    Active,
    Used,
    Revoked,
}

/// Server-side record of a refresh token.
#[derive(Debug, Clone)]
pub struct RefreshRecord {
    pub account_id: String,
    pub state: RefreshState,
}

/// Encodes `claims` as an unsigned JWT with a dummy signature segment.
pub fn unsigned_jwt(claims: &Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    format!("{header}.{payload}.c2lt")
}

/// Decodes the payload of a JWT without verification.
pub fn jwt_claims(jwt: &str) -> Option<Value> {
    let payload = jwt.split('.').nth(1)?;
    let bytes = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Mints a token set for `account`. `issuer` is the OAuth issuer URL, `client_id` the audience of
/// the id token, `nonce` the OIDC nonce of an xAI authorization request.
pub fn mint(account: &Account, issuer: &str, client_id: &str, nonce: Option<&str>) -> TokenSet {
    let now = now_unix();
    let expires_at = now + account.access_token_ttl_secs;
    match account.provider {
        Provider::Openai => {
            let auth = json!({
                "chatgpt_account_id": account.id,
                "chatgpt_plan_type": account.plan,
                "chatgpt_user_id": account.user_id,
                "user_id": account.user_id,
                "organization_id": format!("org-{}", account.id),
                "project_id": "",
                "completed_platform_onboarding": true,
                "is_org_owner": true,
            });
            let profile = json!({"email": account.email, "email_verified": true});
            let claims = |aud: Value| {
                json!({
                    "iss": issuer,
                    "aud": aud,
                    "sub": account.user_id,
                    "email": account.email,
                    "email_verified": true,
                    "iat": now,
                    "exp": expires_at,
                    "jti": token(""),
                    "https://api.openai.com/auth": auth,
                    "https://api.openai.com/profile": profile,
                })
            };
            TokenSet {
                account_id: account.id.clone(),
                provider: Provider::Openai,
                access_token: unsigned_jwt(&claims(json!(["https://api.openai.com/v1"]))),
                id_token: unsigned_jwt(&claims(json!([client_id]))),
                refresh_token: token("rt_sim_"),
                expires_in: account.access_token_ttl_secs,
                expires_at,
            }
        }
        Provider::Xai => {
            let mut claims = json!({
                "iss": issuer,
                "aud": client_id,
                "azp": client_id,
                "sub": account.user_id,
                "email": account.email,
                "team_id": account.id,
                "iat": now,
                "exp": expires_at,
            });
            if let Some(nonce) = nonce {
                claims["nonce"] = json!(nonce);
            }
            TokenSet {
                account_id: account.id.clone(),
                provider: Provider::Xai,
                access_token: token("xai-at-"),
                id_token: crate::xai::signing::sign_id_token(&claims),
                refresh_token: token("xai-rt-"),
                expires_in: account.access_token_ttl_secs,
                expires_at,
            }
        }
    }
}

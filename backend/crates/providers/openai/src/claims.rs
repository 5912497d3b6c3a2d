//! Identity from ChatGPT token claims, read from the JWT payload without verifying the
//! signature (as Codex itself does): `email`, the `https://api.openai.com/auth` object and the
//! `https://api.openai.com/profile` object, from the id token first and the access token for
//! whatever it lacks.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    pub email: Option<String>,
    pub account_id: Option<String>,
    pub plan_type: Option<String>,
    pub user_id: Option<String>,
    /// `exp` of the token (unix seconds).
    pub expires_at: Option<i64>,
}

impl Identity {
    /// Enough to identify the account: its ChatGPT account id.
    pub fn is_verified(&self) -> bool {
        self.account_id.is_some()
    }

    /// Fills what `self` lacks from `other`.
    pub fn or(mut self, other: Identity) -> Identity {
        self.email = self.email.or(other.email);
        self.account_id = self.account_id.or(other.account_id);
        self.plan_type = self.plan_type.or(other.plan_type);
        self.user_id = self.user_id.or(other.user_id);
        self.expires_at = self.expires_at.or(other.expires_at);
        self
    }
}

#[derive(Deserialize, Default)]
struct Payload {
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    exp: Option<i64>,
    #[serde(default, rename = "https://api.openai.com/auth")]
    auth: Option<AuthClaims>,
    #[serde(default, rename = "https://api.openai.com/profile")]
    profile: Option<ProfileClaims>,
}

#[derive(Deserialize, Default)]
struct AuthClaims {
    #[serde(default)]
    chatgpt_account_id: Option<String>,
    #[serde(default)]
    chatgpt_plan_type: Option<String>,
    #[serde(default)]
    chatgpt_user_id: Option<String>,
    #[serde(default)]
    user_id: Option<String>,
}

#[derive(Deserialize, Default)]
struct ProfileClaims {
    #[serde(default)]
    email: Option<String>,
}

/// Reads the claims of one JWT; an unreadable token gives an empty identity.
pub fn read(jwt: &str) -> Identity {
    let Some(payload) = jwt.split('.').nth(1) else { return Identity::default() };
    let Ok(bytes) = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')) else { return Identity::default() };
    let Ok(payload) = serde_json::from_slice::<Payload>(&bytes) else { return Identity::default() };
    let auth = payload.auth.unwrap_or_default();
    Identity {
        email: payload.email.or(payload.profile.and_then(|p| p.email)),
        account_id: auth.chatgpt_account_id,
        plan_type: auth.chatgpt_plan_type.map(|p| normalise_plan(&p)),
        user_id: auth.chatgpt_user_id.or(auth.user_id),
        expires_at: payload.exp,
    }
}

/// Plan names as Codex normalises them (`hc` → enterprise, `education` → edu).
fn normalise_plan(plan: &str) -> String {
    match plan {
        "hc" => "enterprise".to_owned(),
        "education" => "edu".to_owned(),
        other => other.to_owned(),
    }
}

//! What a pending OpenAI login keeps until its completion (stored as the flow's provider
//! payload): the PKCE verifier and redirect of a browser login, or the device ids of a device
//! login, and the installation id minted for a new account.

use gateway_core::oauth_login::{FlowSecret, OAuthFailure};
use serde::{Deserialize, Serialize};

pub const PAYLOAD_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FlowPayload {
    Browser { v: u32, verifier: String, redirect_uri: String, installation_id: String },
    Device { v: u32, device_auth_id: String, user_code: String, installation_id: String },
}

impl FlowPayload {
    pub fn seal(&self) -> FlowSecret {
        FlowSecret::new(serde_json::to_string(self).unwrap_or_default())
    }

    pub fn open(secret: &FlowSecret) -> Result<Self, OAuthFailure> {
        let payload: Self = serde_json::from_str(secret.expose()).map_err(|_| OAuthFailure::CorruptFlow)?;
        let v = match &payload {
            Self::Browser { v, .. } | Self::Device { v, .. } => *v,
        };
        if v != PAYLOAD_VERSION {
            return Err(OAuthFailure::CorruptFlow);
        }
        Ok(payload)
    }
}

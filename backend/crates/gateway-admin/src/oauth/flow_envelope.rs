//! What a pending flow stores: the flow kind, the re-authorisation target (an account id only;
//! its revision is read again at completion) and the provider's own payload.

use gateway_core::domain::AccountId;
use gateway_core::oauth_login::FlowSecret;
use serde::{Deserialize, Serialize};

const ENVELOPE_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    Browser,
    Device,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    v: u32,
    kind: FlowKind,
    target: Option<i64>,
    provider_payload: String,
}

pub struct FlowEnvelope {
    pub kind: FlowKind,
    pub target: Option<AccountId>,
    pub payload: FlowSecret,
}

impl FlowEnvelope {
    pub fn encode(&self) -> Vec<u8> {
        let stored = Stored {
            v: ENVELOPE_VERSION,
            kind: self.kind,
            target: self.target.map(|a| a.0),
            provider_payload: self.payload.expose().to_owned(),
        };
        serde_json::to_vec(&stored).unwrap_or_default()
    }

    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let stored: Stored = serde_json::from_slice(bytes).ok()?;
        if stored.v != ENVELOPE_VERSION {
            return None;
        }
        Some(Self {
            kind: stored.kind,
            target: stored.target.map(AccountId),
            payload: FlowSecret::new(stored.provider_payload),
        })
    }
}

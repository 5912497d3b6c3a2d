//! What a pending flow stores: the flow kind, the re-authorisation target (an account id only;
//! its revision is read again at completion), the login's egress proxy (the whole URL: the
//! record is sealed) and the provider's own payload.

use gateway_core::domain::{AccountId, EgressProxy};
use gateway_core::oauth_login::FlowSecret;
use serde::{Deserialize, Serialize};

use super::login_proxy::FlowProxy;

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
    /// Absent in flows started before logins went through proxies: direct.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    egress_proxy: Option<StoredProxy>,
}

#[derive(Serialize, Deserialize)]
struct StoredProxy {
    display: String,
    url: String,
    keep: bool,
}

pub struct FlowEnvelope {
    pub kind: FlowKind,
    pub target: Option<AccountId>,
    pub payload: FlowSecret,
    pub proxy: Option<FlowProxy>,
}

impl FlowEnvelope {
    pub fn encode(&self) -> Vec<u8> {
        let stored = Stored {
            v: ENVELOPE_VERSION,
            kind: self.kind,
            target: self.target.map(|a| a.0),
            provider_payload: self.payload.expose().to_owned(),
            egress_proxy: self.proxy.as_ref().and_then(|p| {
                let url = p.proxy.expose_url()?.to_owned();
                Some(StoredProxy { display: p.proxy.display().to_owned(), url, keep: p.keep })
            }),
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
            proxy: stored.egress_proxy.map(|p| FlowProxy { proxy: EgressProxy::new(p.display, p.url), keep: p.keep }),
        })
    }
}

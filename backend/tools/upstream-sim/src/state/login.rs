//! Authorization codes and device-code logins.

use crate::account::Provider;
use crate::ids::{now_unix, token};
use crate::state::{SimState, StateError};

/// An authorization code waiting to be exchanged.
#[derive(Debug, Clone)]
pub struct AuthCode {
    pub provider: Provider,
    pub account_id: String,
    pub client_id: String,
    pub redirect_uri: String,
    pub code_challenge: String,
    pub nonce: Option<String>,
    pub expires_at: u64,
}

/// State of a device-code login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceStatus {
    Pending,
    Approved {
        account_id: String,
    },
    Denied,
    Expired,
    /// Answer the next poll with `slow_down`, then pending again.
    SlowDown,
    /// Tokens were handed out; further polls fail.
    Redeemed,
}

/// A device-code login in progress.
#[derive(Debug, Clone)]
pub struct DeviceFlow {
    pub provider: Provider,
    /// `device_auth_id` (OpenAI) or `device_code` (xAI).
    pub device_id: String,
    pub user_code: String,
    pub created_at: u64,
    pub nonce: Option<String>,
    pub status: DeviceStatus,
}

/// How a device flow is resolved by the control API.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceDecision {
    #[default]
    Approve,
    Deny,
    Expire,
    SlowDown,
}

impl SimState {
    pub fn issue_code(&self, code: AuthCode) -> String {
        let value = token("ac_sim_");
        self.inner().codes.insert(value.clone(), code);
        value
    }

    /// Takes a code (single use).
    pub fn take_code(&self, code: &str) -> Option<AuthCode> {
        self.inner().codes.remove(code).filter(|c| c.expires_at > now_unix())
    }

    pub fn start_device_flow(&self, provider: Provider, nonce: Option<String>) -> DeviceFlow {
        let flow = DeviceFlow {
            provider,
            device_id: token(if provider == Provider::Openai { "deviceauth_" } else { "xai-dc-" }),
            user_code: crate::ids::user_code(),
            created_at: now_unix(),
            nonce,
            status: DeviceStatus::Pending,
        };
        self.inner().devices.push(flow.clone());
        flow
    }

    /// Looks up a device flow by its device id; `slow_down` is answered once.
    pub fn poll_device_flow(&self, device_id: &str) -> Option<DeviceFlow> {
        let mut inner = self.inner();
        let flow = inner.devices.iter_mut().find(|f| f.device_id == device_id)?;
        if flow.status == DeviceStatus::Pending && now_unix() > flow.created_at + 900 {
            flow.status = DeviceStatus::Expired;
        }
        let seen = flow.clone();
        match flow.status {
            DeviceStatus::SlowDown => flow.status = DeviceStatus::Pending,
            DeviceStatus::Approved { .. } => flow.status = DeviceStatus::Redeemed,
            _ => {}
        }
        Some(seen)
    }

    /// Resolves a pending device flow (`user_code` None = the newest pending one).
    pub fn decide_device_flow(
        &self,
        user_code: Option<&str>,
        account_id: Option<&str>,
        decision: DeviceDecision,
    ) -> Result<DeviceFlow, StateError> {
        let mut inner = self.inner();
        let index = inner
            .devices
            .iter()
            .rposition(|f| f.status == DeviceStatus::Pending && user_code.is_none_or(|code| f.user_code == code))
            .ok_or_else(|| StateError::NotFound("pending device flow".into()))?;
        let provider = inner.devices[index].provider;
        let status = match decision {
            DeviceDecision::Approve => {
                let account = match account_id {
                    Some(id) => inner.accounts.get(id).filter(|a| a.provider == provider),
                    None => inner.accounts.values().find(|a| a.provider == provider),
                }
                .ok_or_else(|| StateError::NotFound("account for the device flow".into()))?;
                DeviceStatus::Approved { account_id: account.id.clone() }
            }
            DeviceDecision::Deny => DeviceStatus::Denied,
            DeviceDecision::Expire => DeviceStatus::Expired,
            DeviceDecision::SlowDown => DeviceStatus::SlowDown,
        };
        inner.devices[index].status = status;
        Ok(inner.devices[index].clone())
    }

    pub fn device_flows(&self) -> Vec<DeviceFlow> {
        self.inner().devices.clone()
    }
}

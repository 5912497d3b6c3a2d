//! Provider-side actions on one account that the admin API triggers: refresh the credential
//! now, and test the connection with a minimal real request. Providers implement this port
//! (issue 9 builds the OpenAI side); until one is wired the admin API answers `501
//! not_implemented` for these actions.

use async_trait::async_trait;
use serde::Serialize;

use gateway_core::domain::AccountId;

use crate::error::AdminError;

/// What a refresh did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshReport {
    pub refreshed: bool,
    /// Stable reason when not refreshed (e.g. `invalid_grant`).
    pub reason: Option<String>,
}

/// What a connection test saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionTest {
    pub ok: bool,
    pub model: String,
    pub http_status: Option<u16>,
    pub first_token_ms: Option<u64>,
    pub total_ms: u64,
    pub error_code: Option<String>,
}

#[async_trait]
pub trait AccountActions: Send + Sync {
    async fn refresh_now(&self, account: AccountId) -> Result<RefreshReport, AdminError>;
    async fn test_connection(&self, account: AccountId, model: Option<String>) -> Result<ConnectionTest, AdminError>;
}

//! What a request came to, beyond its attempts: the facts the engine records when the response
//! is committed or the request ends, the store writes into the row and the usage views read back.

use crate::domain::money::NanoUsd;
use crate::domain::request_usage::TokenUsage;

/// The outcome facts of one request. In an update a `None` field keeps the stored value; read
/// back, `None` means the request never had it (a refused request has no usage, a request that
/// ended before the commit has no response id).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestOutcome {
    /// The status line the client received (or was about to receive at the commit).
    pub http_status: Option<u16>,
    /// The stable error code of a request that did not complete.
    pub error_code: Option<String>,
    pub usage: Option<TokenUsage>,
    /// The estimated price of `usage`.
    pub cost: Option<NanoUsd>,
    /// The tier recorded and priced (the response's own, else the one the key's policy forced).
    pub service_tier: Option<String>,
    /// The model that served the call.
    pub upstream_model: Option<String>,
    /// The response id the client was given.
    pub client_response_id: Option<Vec<u8>>,
    /// The response id the upstream gave.
    pub upstream_response_id: Option<Vec<u8>>,
}

impl RequestOutcome {
    /// A request that ended with `http_status` and `error_code` and nothing else.
    pub fn error(http_status: Option<u16>, error_code: impl Into<String>) -> Self {
        Self { http_status, error_code: Some(error_code.into()), ..Self::default() }
    }

    /// Sets both response ids: the gateway hands the client the upstream's own id.
    pub fn with_response_id(mut self, id: Option<&str>) -> Self {
        self.upstream_response_id = id.map(|id| id.as_bytes().to_vec());
        self.client_response_id = self.upstream_response_id.clone();
        self
    }
}

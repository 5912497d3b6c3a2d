//! What a finished request consumed and how long its phases took.

use serde::{Deserialize, Serialize};

/// Token counts as reported by the upstream response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    pub input_tokens: u64,
    pub cached_input_tokens: u64,
    pub output_tokens: u64,
    pub reasoning_tokens: u64,
    pub total_tokens: u64,
}

/// Latency splits in milliseconds from the request start; `None` when the phase was not reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencySplits {
    pub connect_ms: Option<u32>,
    pub headers_ms: Option<u32>,
    pub first_event_ms: Option<u32>,
    pub first_token_ms: Option<u32>,
    pub total_ms: Option<u32>,
}

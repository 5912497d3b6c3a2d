//! Token usage as the Responses API reports it (chat-style names accepted too).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default, alias = "prompt_tokens")]
    pub input_tokens: u64,
    #[serde(default, alias = "completion_tokens")]
    pub output_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
    #[serde(default, alias = "prompt_tokens_details", deserialize_with = "cached")]
    pub input_tokens_details: CachedTokens,
    #[serde(default, alias = "completion_tokens_details", deserialize_with = "reasoning")]
    pub output_tokens_details: ReasoningTokens,
    /// xAI's own price of the call, in ticks of 1e-10 USD (PROTOCOL H.4); `None` when absent or
    /// not a non-negative integer.
    #[serde(default, deserialize_with = "ticks", skip_serializing_if = "Option::is_none")]
    pub cost_in_usd_ticks: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedTokens {
    #[serde(default)]
    pub cached_tokens: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasoningTokens {
    #[serde(default)]
    pub reasoning_tokens: u64,
}

/// `*_details` may be `null`.
fn cached<'de, D: serde::Deserializer<'de>>(d: D) -> Result<CachedTokens, D::Error> {
    Ok(Option::<CachedTokens>::deserialize(d)?.unwrap_or_default())
}

fn reasoning<'de, D: serde::Deserializer<'de>>(d: D) -> Result<ReasoningTokens, D::Error> {
    Ok(Option::<ReasoningTokens>::deserialize(d)?.unwrap_or_default())
}

/// A bad `cost_in_usd_ticks` is ignored, never a reason to lose the token counts.
fn ticks<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Option::<serde_json::Value>::deserialize(d)?.and_then(|v| v.as_u64()))
}

impl Usage {
    pub fn cached_input_tokens(&self) -> u64 {
        self.input_tokens_details.cached_tokens
    }

    pub fn reasoning_tokens(&self) -> u64 {
        self.output_tokens_details.reasoning_tokens
    }

    /// `total_tokens`, or input + output when the upstream left it out.
    pub fn total(&self) -> u64 {
        if self.total_tokens > 0 { self.total_tokens } else { self.input_tokens + self.output_tokens }
    }
}

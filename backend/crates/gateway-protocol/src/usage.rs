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

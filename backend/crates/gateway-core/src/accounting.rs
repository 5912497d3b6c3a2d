//! Accounting: usage and cost of a request from a model × service-tier price table.
//!
//! Subscription accounts are not billed per token; the cost recorded is what the same usage
//! would cost at API list prices, so admins can compare keys and set budgets in dollars. When
//! the upstream prices the call itself (xAI's `usage.cost_in_usd_ticks`, 1 tick = 1e-10 USD,
//! PROTOCOL H.4), a non-zero figure wins over the table.

use std::collections::HashMap;

use gateway_protocol::Usage;

use crate::domain::{NanoUsd, TokenUsage};

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub cached_input: f64,
    pub output: f64,
}

#[derive(Debug, Clone)]
pub struct PriceTable {
    models: HashMap<String, Price>,
    /// Models whose every price doubles from this many input tokens on (xAI's long context).
    long_context: HashMap<String, u64>,
    fallback: Price,
}

/// xAI doubles every price of a call with at least this many input tokens (PROTOCOL H.4).
pub const XAI_LONG_CONTEXT_INPUT_TOKENS: u64 = 200_000;

impl Default for PriceTable {
    /// List prices of the Codex-served models as published for the API (USD per 1M tokens).
    fn default() -> Self {
        let gpt5 = Price { input: 1.25, cached_input: 0.125, output: 10.0 };
        let mini = Price { input: 0.25, cached_input: 0.025, output: 2.0 };
        let newer = Price { input: 1.75, cached_input: 0.175, output: 14.0 };
        let mut models = HashMap::new();
        for model in ["gpt-5", "gpt-5-codex", "gpt-5.1", "gpt-5.1-codex", "gpt-5.1-codex-max"] {
            models.insert(model.to_owned(), gpt5);
        }
        for model in ["gpt-5-codex-mini", "gpt-5.1-codex-mini"] {
            models.insert(model.to_owned(), mini);
        }
        for model in ["gpt-5.2", "gpt-5.2-codex", "gpt-5.3-codex", "gpt-5.4"] {
            models.insert(model.to_owned(), newer);
        }
        // xAI list prices (PROTOCOL H.4).
        let grok = Price { input: 2.0, cached_input: 0.3, output: 6.0 };
        let grok_build = Price { input: 1.0, cached_input: 0.2, output: 2.0 };
        let grok_4_3 = Price { input: 1.25, cached_input: 0.2, output: 2.5 };
        models.insert("grok-4.5".to_owned(), grok);
        for model in ["grok-build-0.1", "grok-code-fast-1", "grok-composer-2.5-fast"] {
            models.insert(model.to_owned(), grok_build);
        }
        for model in
            ["grok-4.3", "grok-4.20-0309-reasoning", "grok-4.20-0309-non-reasoning", "grok-4.20-0309-multi-agent"]
        {
            models.insert(model.to_owned(), grok_4_3);
        }
        let long_context = models
            .keys()
            .filter(|model| model.starts_with("grok-"))
            .map(|model| (model.clone(), XAI_LONG_CONTEXT_INPUT_TOKENS))
            .collect();
        Self { models, long_context, fallback: gpt5 }
    }
}

impl PriceTable {
    /// Price multiplier of a service tier: `priority` costs double, `flex` half.
    fn tier_factor(tier: Option<&str>) -> f64 {
        match tier {
            Some("priority") => 2.0,
            Some("flex") => 0.5,
            _ => 1.0,
        }
    }

    pub fn cost(&self, model: &str, tier: Option<&str>, usage: &TokenUsage) -> NanoUsd {
        let price = self.models.get(model).copied().unwrap_or(self.fallback);
        let uncached = usage.input_tokens.saturating_sub(usage.cached_input_tokens) as f64;
        let usd_per_million = uncached * price.input
            + usage.cached_input_tokens as f64 * price.cached_input
            + usage.output_tokens as f64 * price.output;
        let long = self.long_context.get(model).is_some_and(|from| usage.input_tokens >= *from);
        let factor = Self::tier_factor(tier) * if long { 2.0 } else { 1.0 };
        let nano = usd_per_million * factor * 1_000.0; // 1e9 nano / 1e6 tokens
        NanoUsd(nano.round() as i64)
    }

    /// The cost of a response's usage: the upstream's own non-zero price when it gave one
    /// (taken as billed: no tier factor), else the table's.
    pub fn charge(&self, model: &str, tier: Option<&str>, usage: &Usage) -> NanoUsd {
        match usage.cost_in_usd_ticks.filter(|ticks| *ticks > 0) {
            Some(ticks) => ticks_to_nano(ticks),
            None => self.cost(model, tier, &token_usage(usage)),
        }
    }
}

/// 1 tick = 1e-10 USD = 0.1 nano-USD, rounded half up.
pub fn ticks_to_nano(ticks: u64) -> NanoUsd {
    NanoUsd(i64::try_from(ticks.saturating_add(5) / 10).unwrap_or(i64::MAX))
}

/// The stored usage of a Responses usage object.
pub fn token_usage(usage: &Usage) -> TokenUsage {
    TokenUsage {
        input_tokens: usage.input_tokens,
        cached_input_tokens: usage.cached_input_tokens(),
        output_tokens: usage.output_tokens,
        reasoning_tokens: usage.reasoning_tokens(),
        total_tokens: usage.total(),
    }
}

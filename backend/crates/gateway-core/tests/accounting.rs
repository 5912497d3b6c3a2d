use gateway_core::accounting::PriceTable;
use gateway_core::domain::{NanoUsd, TokenUsage};

#[test]
fn cost_counts_uncached_cached_and_output_tokens_at_list_price() {
    let table = PriceTable::default();
    let usage = TokenUsage {
        input_tokens: 1_000_000,
        cached_input_tokens: 400_000,
        output_tokens: 100_000,
        reasoning_tokens: 0,
        total_tokens: 1_100_000,
    };
    // gpt-5: 0.6M × $1.25 + 0.4M × $0.125 + 0.1M × $10 = 0.75 + 0.05 + 1.0 = $1.80
    assert_eq!(table.cost("gpt-5", None, &usage), NanoUsd(1_800_000_000));
    assert_eq!(table.cost("gpt-5", Some("priority"), &usage), NanoUsd(3_600_000_000));
    assert_eq!(table.cost("gpt-5", Some("flex"), &usage), NanoUsd(900_000_000));
    assert_eq!(table.cost("unknown-model", None, &usage), NanoUsd(1_800_000_000));
}

fn usage(value: serde_json::Value) -> gateway_protocol::Usage {
    serde_json::from_value(value).expect("usage")
}

#[test]
fn an_upstream_price_in_ticks_wins_over_the_table() {
    let table = PriceTable::default();
    // 1 tick = 1e-10 USD: 1,234,567 ticks = $0.0001234567 = 123,456.7 nano-USD.
    let priced = usage(serde_json::json!({"input_tokens": 1000, "output_tokens": 10, "cost_in_usd_ticks": 1_234_567}));
    assert_eq!(table.charge("grok-4.5", None, &priced), NanoUsd(123_457));
    assert_eq!(table.charge("grok-4.5", Some("priority"), &priced), NanoUsd(123_457), "taken as billed");
    // Zero or absent ticks: the list price (grok-4.5: 1,000 × $2 + 10 × $6 per 1M = $0.00206).
    let free = usage(serde_json::json!({"input_tokens": 1000, "output_tokens": 10, "cost_in_usd_ticks": 0}));
    assert_eq!(table.charge("grok-4.5", None, &free), NanoUsd(2_060_000));
    let unpriced = usage(serde_json::json!({"input_tokens": 1000, "output_tokens": 10}));
    assert_eq!(table.charge("grok-4.5", None, &unpriced), NanoUsd(2_060_000));
}

#[test]
fn a_bad_tick_count_is_ignored_and_the_tokens_kept() {
    for bad in [serde_json::json!(-5), serde_json::json!(1.5), serde_json::json!("12"), serde_json::Value::Null] {
        let parsed = usage(serde_json::json!({"input_tokens": 7, "output_tokens": 3, "cost_in_usd_ticks": bad}));
        assert_eq!((parsed.input_tokens, parsed.output_tokens, parsed.cost_in_usd_ticks), (7, 3, None), "{bad}");
    }
    let serialized = serde_json::to_value(usage(serde_json::json!({"input_tokens": 1}))).expect("json");
    assert!(serialized.get("cost_in_usd_ticks").is_none(), "absent stays absent: {serialized}");
}

#[test]
fn grok_prices_double_from_200k_input_tokens() {
    let table = PriceTable::default();
    let at = |input: u64| TokenUsage {
        input_tokens: input,
        cached_input_tokens: 0,
        output_tokens: 0,
        reasoning_tokens: 0,
        total_tokens: input,
    };
    // grok-4.5 input: $2 per 1M.
    assert_eq!(table.cost("grok-4.5", None, &at(199_999)), NanoUsd(399_998_000));
    assert_eq!(table.cost("grok-4.5", None, &at(200_000)), NanoUsd(800_000_000));
    assert_eq!(table.cost("grok-build-0.1", None, &at(200_000)), NanoUsd(400_000_000));
    // OpenAI models do not double.
    assert_eq!(table.cost("gpt-5", None, &at(200_000)), NanoUsd(250_000_000));
}

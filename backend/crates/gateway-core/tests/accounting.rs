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

//! The Codex catalog shape (`src/codex_catalog.rs`).

use gateway_protocol::codex_catalog::catalog;

#[test]
fn every_entry_has_the_fields_codex_requires_and_the_order_is_the_priority() {
    let body = catalog(["gpt-5.4", "gpt-5.2-codex"]);
    let models = body["models"].as_array().expect("models");
    assert_eq!(models.len(), 2);
    for (at, model) in models.iter().enumerate() {
        assert_eq!(model["priority"], at as i64 + 1);
        for field in [
            "slug",
            "display_name",
            "supported_reasoning_levels",
            "shell_type",
            "visibility",
            "supported_in_api",
            "base_instructions",
            "supports_reasoning_summaries",
            "support_verbosity",
            "truncation_policy",
            "supports_parallel_tool_calls",
            "experimental_supported_tools",
        ] {
            assert!(model.get(field).is_some(), "{field} missing");
        }
    }
    assert_eq!(models[1]["slug"], "gpt-5.2-codex");
}

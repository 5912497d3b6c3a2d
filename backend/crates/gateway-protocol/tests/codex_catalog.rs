//! The Codex catalog shape (`src/codex_catalog.rs`).

use gateway_protocol::codex_catalog::{CatalogItem, catalog_body};
use serde_json::Value;

fn parse(body: &str) -> Vec<Value> {
    let body: Value = serde_json::from_str(body).expect("the body is JSON");
    body["models"].as_array().expect("models").clone()
}

#[test]
fn every_neutral_entry_has_the_fields_codex_requires_and_the_order_is_the_priority() {
    let models = parse(&catalog_body([CatalogItem::Neutral("gpt-5.4"), CatalogItem::Neutral("gpt-5.2-codex")]));
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

#[test]
fn upstream_entries_are_served_byte_for_byte_and_neutral_ones_follow_their_priorities() {
    let upstream = r#"{"slug":"gpt-5.4","priority":7,"base_instructions":"Be Codex.\nLine two.","apply_patch_tool_type":"freeform","z_unknown_field":{"kept":true}}"#;
    let body = catalog_body([
        CatalogItem::Neutral("alias-a"),
        CatalogItem::Upstream { json: upstream, priority: Some(7) },
        CatalogItem::Neutral("grok-4"),
    ]);
    assert!(body.contains(upstream), "the upstream text is embedded unchanged: {body}");
    let models = parse(&body);
    let slugs: Vec<&str> = models.iter().filter_map(|m| m["slug"].as_str()).collect();
    assert_eq!(slugs, ["alias-a", "gpt-5.4", "grok-4"], "the order given");
    assert_eq!(models[1]["z_unknown_field"]["kept"], true);
    assert_eq!((models[0]["priority"].clone(), models[2]["priority"].clone()), (8.into(), 9.into()));
    assert_eq!(models[0]["base_instructions"], "", "neutral entries keep the client's own instructions");
}

#[test]
fn an_empty_catalog_is_an_empty_list() {
    assert!(parse(&catalog_body([])).is_empty());
}

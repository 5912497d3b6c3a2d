//! A section's refusal, seen from where it is mounted.

use gateway_core::config::InvalidConfig;

#[test]
fn a_refusal_names_the_key_from_the_parent_section() {
    let refused = InvalidConfig::new("backend_url", "must be an http(s) URL").under("openai").under("providers");
    assert_eq!(refused.key, "providers.openai.backend_url");
    assert_eq!(refused.to_string(), "invalid value for `providers.openai.backend_url`: must be an http(s) URL");
    assert_eq!(InvalidConfig::new("", "bad").under("engine").key, "engine");
}

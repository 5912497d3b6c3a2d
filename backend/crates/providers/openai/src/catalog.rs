//! The models the Codex backend serves. Until per-account catalogs are fetched (`/codex/models`),
//! the embedded fallback list below is what the gateway knows.

use gateway_core::provider::ModelInfo;

/// Codex models known to this build, newest first.
pub const FALLBACK_MODELS: &[&str] = &[
    "gpt-5.4",
    "gpt-5.3-codex",
    "gpt-5.2-codex",
    "gpt-5.2",
    "gpt-5.1-codex-max",
    "gpt-5.1-codex",
    "gpt-5.1-codex-mini",
    "gpt-5.1",
    "gpt-5-codex",
    "gpt-5-codex-mini",
    "gpt-5",
];

pub fn fallback_supports(model: &str) -> bool {
    FALLBACK_MODELS.contains(&model)
}

pub fn fallback_models() -> Vec<ModelInfo> {
    FALLBACK_MODELS.iter().map(|id| ModelInfo { id: (*id).to_owned(), owned_by: "openai" }).collect()
}

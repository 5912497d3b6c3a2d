//! Model names: the Grok aliases of PROTOCOL H.3, the configured map of other providers'
//! models to Grok ones (provider fallback, SPEC §4), and the fallback catalog used until the
//! first `/v1/models` answer.

use gateway_core::provider::ModelInfo;

pub const OWNER: &str = "xai";
/// The model of a request that names none.
pub const DEFAULT_MODEL: &str = "grok-4.5";

/// Models known before any catalog was fetched.
pub fn fallback_models() -> Vec<ModelInfo> {
    ["grok-4.5", "grok-build-0.1", "grok-composer-2.5-fast", "grok-4.3", "grok-code-fast-1"]
        .into_iter()
        .map(|id| ModelInfo { id: id.to_owned(), owned_by: OWNER })
        .collect()
}

/// The upstream id of a Grok model name: provider prefixes stripped, aliases resolved.
pub fn normalize(model: &str) -> String {
    let trimmed = model.trim();
    let bare = ["xai/", "x-ai/", "grok/"].iter().find_map(|p| trimmed.strip_prefix(p)).unwrap_or(trimmed);
    let resolved = match bare {
        "" | "grok" | "grok-latest" | "grok-build-latest" | "grok-4.5-latest" => DEFAULT_MODEL,
        "grok-build" => "grok-build-0.1",
        "grok-composer" | "composer-2.5" => "grok-composer-2.5-fast",
        "grok-4.20-reasoning" => "grok-4.20-0309-reasoning",
        "grok-4.20-non-reasoning" => "grok-4.20-0309-non-reasoning",
        "grok-4.20-multi-agent" => "grok-4.20-0309-multi-agent",
        other => other,
    };
    resolved.to_owned()
}

/// Maps requested model names to Grok models.
#[derive(Debug, Clone, Default)]
pub struct ModelMap {
    entries: Vec<(String, String)>,
}

impl ModelMap {
    pub fn new(entries: Vec<(String, String)>) -> Self {
        Self { entries }
    }

    /// The Grok model `requested` stands for: a mapped name's target, else the alias rules.
    pub fn upstream(&self, requested: &str) -> String {
        match self.entries.iter().find(|(from, _)| from == requested) {
            Some((_, to)) => normalize(to),
            None => normalize(requested),
        }
    }

    /// The mapped names, for the model list.
    pub fn mapped(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(from, to)| (from.as_str(), to.as_str()))
    }
}

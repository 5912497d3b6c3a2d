//! One model's entry as an upstream catalog sent it (a Codex ModelInfo object: instructions,
//! tool types, reasoning levels, context window, …), kept so the gateway can serve Codex the
//! upstream's own entry. The gateway never reads it past `slug` and `priority`: the text is
//! kept and served byte for byte.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};
use time::OffsetDateTime;

/// The most bytes one entry may take. Real entries are tens of kilobytes (the base
/// instructions); a bigger one is not kept (the model is still listed, with the neutral entry).
pub const MAX_CATALOG_ENTRY_BYTES: usize = 256 * 1024;

/// Why an entry is not kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogEntryError {
    #[error("the entry is {0} bytes, more than {MAX_CATALOG_ENTRY_BYTES}")]
    TooLarge(usize),
    #[error("the entry is not a JSON object")]
    NotAnObject,
    #[error("the entry has no slug")]
    NoSlug,
}

/// The raw JSON text of one catalog entry with the two fields the gateway reads.
#[derive(Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    slug: String,
    priority: Option<i64>,
    json: Arc<str>,
}

impl CatalogEntry {
    /// Checks `json` (one JSON object with a non-empty `slug`, at most
    /// [`MAX_CATALOG_ENTRY_BYTES`]) and keeps it as sent.
    pub fn parse(json: &str) -> Result<Self, CatalogEntryError> {
        if json.len() > MAX_CATALOG_ENTRY_BYTES {
            return Err(CatalogEntryError::TooLarge(json.len()));
        }
        let object: Map<String, Value> = serde_json::from_str(json).map_err(|_| CatalogEntryError::NotAnObject)?;
        let slug =
            object.get("slug").and_then(Value::as_str).filter(|s| !s.is_empty()).ok_or(CatalogEntryError::NoSlug)?;
        let priority = object.get("priority").and_then(Value::as_i64);
        Ok(Self { slug: slug.to_owned(), priority, json: json.trim().into() })
    }

    pub fn slug(&self) -> &str {
        &self.slug
    }

    pub fn priority(&self) -> Option<i64> {
        self.priority
    }

    /// The entry as the upstream sent it (one JSON object).
    pub fn json(&self) -> &str {
        &self.json
    }
}

impl fmt::Debug for CatalogEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CatalogEntry")
            .field("slug", &self.slug)
            .field("priority", &self.priority)
            .field("bytes", &self.json.len())
            .finish()
    }
}

/// An entry with the time its plan's catalog was installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncedEntry {
    pub fetched_at: OffsetDateTime,
    pub entry: CatalogEntry,
}

/// The one entry served for a model several plans' catalogs list: the one from the newest
/// installed catalog; between catalogs installed at the same instant, the smallest plan key.
pub fn pick_entry<'a>(candidates: impl IntoIterator<Item = (&'a str, SyncedEntry)>) -> Option<CatalogEntry> {
    candidates
        .into_iter()
        .max_by(|(plan_a, a), (plan_b, b)| a.fetched_at.cmp(&b.fetched_at).then_with(|| plan_b.cmp(plan_a)))
        .map(|(_, synced)| synced.entry)
}

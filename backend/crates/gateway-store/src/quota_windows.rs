//! `provider_accounts.quota_windows` (JSONB) ⇄ [`QuotaWindow`]: the JSON shape lives here only.

use gateway_core::domain::QuotaWindow;
use serde::{Deserialize, Serialize};

/// One stored window: `{"name", "used_percent", "window_minutes", "reset_at", "plan_type"?}`.
#[derive(Serialize, Deserialize)]
struct StoredWindow {
    #[serde(default)]
    name: String,
    used_percent: f64,
    #[serde(default)]
    window_minutes: Option<i64>,
    #[serde(default)]
    reset_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    plan_type: Option<String>,
}

pub(crate) fn to_json(windows: &[QuotaWindow]) -> serde_json::Value {
    let stored: Vec<StoredWindow> = windows
        .iter()
        .map(|w| StoredWindow {
            name: w.name.clone(),
            used_percent: w.used_percent,
            window_minutes: w.window_minutes,
            reset_at: w.reset_at,
            plan_type: w.plan_type.clone(),
        })
        .collect();
    serde_json::to_value(stored).unwrap_or_else(|_| serde_json::Value::Array(Vec::new()))
}

/// The stored windows; an entry that is not a window (no numeric `used_percent`) is skipped,
/// a value that is not an array reads as no windows.
pub(crate) fn from_json(value: serde_json::Value) -> Vec<QuotaWindow> {
    let serde_json::Value::Array(items) = value else { return Vec::new() };
    items
        .into_iter()
        .filter_map(|item| serde_json::from_value::<StoredWindow>(item).ok())
        .map(|w| QuotaWindow {
            name: w.name,
            used_percent: w.used_percent,
            window_minutes: w.window_minutes,
            reset_at: w.reset_at,
            plan_type: w.plan_type,
        })
        .collect()
}

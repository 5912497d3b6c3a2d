//! Global runtime settings (the singleton `runtime_settings` row).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::closed_set;

closed_set!(
    /// How the selector orders eligible accounts (weights apply to all).
    RotationStrategy as "rotation strategy" {
        /// In-flight slots, then window requests, window tokens, lifetime requests; ties by quota
        /// reset time and last use.
        Smart = "smart",
        QuotaResetPriority = "quota_reset_priority",
        RoundRobin = "round_robin",
        Sticky = "sticky",
    }
);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeSettings {
    /// Exact client model name → model name to route.
    pub model_aliases: BTreeMap<String, String>,
    pub rotation_strategy: RotationStrategy,
    /// Concurrency cap of an account whose own cap is unset.
    pub default_account_concurrency: u32,
    /// Minimum spacing between two requests on one account.
    pub request_interval_ms: u32,
    /// How long before access-token expiry a refresh starts.
    pub refresh_margin_seconds: u32,
    /// Refreshes running at once per replica.
    pub refresh_concurrency: u32,
    /// `model_requests` older than this are deleted.
    pub request_retention_days: u32,
    /// `ops_events` older than this are deleted.
    pub ops_event_retention_days: u32,
}

impl Default for RuntimeSettings {
    /// The same values as the column defaults of `runtime_settings`.
    fn default() -> Self {
        Self {
            model_aliases: BTreeMap::new(),
            rotation_strategy: RotationStrategy::Smart,
            default_account_concurrency: 4,
            request_interval_ms: 0,
            refresh_margin_seconds: 300,
            refresh_concurrency: 4,
            request_retention_days: 30,
            ops_event_retention_days: 14,
        }
    }
}

//! The `backup` events of the live stream: the newest [`WATCHED`] backup records, sent when one
//! appears or changes (state, `bytesDone` progress, verification), and `backup_removed` when
//! one is deleted. The first poll only notes what is there (the page fetched the list itself).
//! The dashboard's backups page patches its list from them instead of polling (decision 0219).

use std::collections::HashMap;

use gateway_admin::AdminError;
use gateway_admin::services::ObservabilityService;
use serde_json::{Value, json};

use crate::admin::backup_routes::BackupView;

/// Records watched per poll (a running job is always among the newest).
pub const WATCHED: u32 = 10;

#[derive(Default)]
pub struct BackupWatch {
    seen: Option<HashMap<i64, Value>>,
}

impl BackupWatch {
    /// The events to send now, as (name, data), oldest record first.
    pub async fn poll(&mut self, watched: &ObservabilityService) -> Result<Vec<(&'static str, Value)>, AdminError> {
        let rows = watched.latest_backups(WATCHED).await?;
        // with a full window, records below its lowest id were pushed out by newer ones
        let full = rows.len() >= WATCHED as usize;
        let lowest = rows.last().map_or(i64::MIN, |r| r.id.0);
        let now: HashMap<i64, Value> =
            rows.into_iter().map(|r| (r.id.0, serde_json::to_value(BackupView::from(r)).unwrap_or_default())).collect();
        let mut out = Vec::new();
        if let Some(seen) = &self.seen {
            let mut changed: Vec<_> = now.iter().filter(|(id, v)| seen.get(id) != Some(v)).collect();
            changed.sort_by_key(|(id, _)| **id);
            out.extend(changed.into_iter().map(|(_, v)| ("backup", v.clone())));
            // gone from the window without being pushed out of its bottom: deleted
            let gone = |id: &i64| !now.contains_key(id) && (!full || *id > lowest);
            let mut removed: Vec<i64> = seen.keys().copied().filter(gone).collect();
            removed.sort_unstable();
            out.extend(removed.into_iter().map(|id| ("backup_removed", json!({"id": id}))));
        }
        self.seen = Some(now);
        Ok(out)
    }
}

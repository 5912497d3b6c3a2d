//! The audit hash chain as both dialects store it: the values an append writes, and the check
//! of one page of rows while verifying (the chain itself is `gateway_admin::audit`).

use std::ops::ControlFlow;

use time::OffsetDateTime;

use gateway_admin::audit::{AuditChainLink, AuditEntry, audit_row_hash};
use gateway_core::domain::ConfigRevision;
use gateway_core::ports::StorageError;

use crate::postgres::column_values::digest;
use crate::row_columns::RowColumns;
use crate::rows::audit::event_from_row;

/// Rows read per round trip while verifying the chain.
pub(crate) const VERIFY_PAGE: i64 = 500;

/// What an append writes besides the entry itself.
pub(crate) struct ChainAppend {
    pub(crate) prev_hash: Option<[u8; 32]>,
    pub(crate) occurred_at: OffsetDateTime,
    pub(crate) row_hash: [u8; 32],
}

/// Links `entry` to the previous row's hash (`prev`, as read), stamped now.
pub(crate) fn chain_append(
    prev: Option<Vec<u8>>,
    entry: &AuditEntry,
    config_revision: ConfigRevision,
) -> Result<ChainAppend, StorageError> {
    let prev_hash = prev.map(|h| digest(h, "admin_audit_events.row_hash")).transpose()?;
    let occurred_at = now_micros();
    let row_hash = audit_row_hash(&AuditChainLink {
        prev_hash: prev_hash.as_ref(),
        occurred_at,
        actor_user_id: entry.actor.user_id,
        actor_name: &entry.actor.name,
        action: &entry.action,
        target_kind: &entry.target_kind,
        target_id: entry.target_id.as_deref(),
        details: &entry.details,
        config_revision,
    });
    Ok(ChainAppend { prev_hash, occurred_at, row_hash })
}

/// The current time at the precision both dialects store (microseconds), so the hash computed
/// now equals the hash recomputed from the stored row.
fn now_micros() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc();
    now.replace_nanosecond(now.nanosecond() / 1_000 * 1_000).unwrap_or(now)
}

/// Verification state across pages read in id order.
#[derive(Default)]
pub(crate) struct ChainCheck {
    /// The last id checked: the next page starts after it.
    pub(crate) after: i64,
    expected_prev: Option<[u8; 32]>,
}

impl ChainCheck {
    /// Checks the next page. `Break(None)`: the chain is intact to its end (an empty page);
    /// `Break(Some(id))`: the first row that does not link; `Continue`: read the next page.
    pub(crate) fn page<R: RowColumns>(&mut self, rows: &[R]) -> Result<ControlFlow<Option<i64>>, StorageError> {
        if rows.is_empty() {
            return Ok(ControlFlow::Break(None));
        }
        for row in rows {
            let event = event_from_row(row)?;
            if event.prev_hash != self.expected_prev || event.expected_hash() != event.row_hash {
                return Ok(ControlFlow::Break(Some(event.id)));
            }
            self.expected_prev = Some(event.row_hash);
            self.after = event.id;
        }
        Ok(ControlFlow::Continue(()))
    }
}

//! Retention: which records to delete, as a pure function of the records, the policy and the
//! time. It never selects the newest verified backup (restore-verified if any is, else the
//! newest completed one), whatever the policy says.

use time::{Duration, OffsetDateTime};

use crate::backup::{BackupId, BackupRecord, BackupState};

/// `count`: keep at most this many completed backups; `days`: delete completed and failed
/// records older than this. `None` keeps everything on that axis.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetentionPolicy {
    pub count: Option<u32>,
    pub days: Option<u32>,
}

/// The backup retention never deletes: the newest restore-verified one, else the newest
/// completed one.
pub fn protected_backup(records: &[BackupRecord]) -> Option<BackupId> {
    let newest = |pred: &dyn Fn(&BackupRecord) -> bool| records.iter().filter(|r| pred(r)).map(|r| r.id).max();
    newest(&|r| r.is_verified()).or_else(|| newest(&|r| r.state == BackupState::Completed))
}

/// The records to delete now: past `expires_at`, beyond `count` (newest kept) or older than
/// `days`; active and deleting records are never chosen, nor the protected backup.
pub fn retention_plan(records: &[BackupRecord], policy: RetentionPolicy, now: OffsetDateTime) -> Vec<BackupId> {
    let protected = protected_backup(records);
    let mut completed: Vec<&BackupRecord> = records.iter().filter(|r| r.state == BackupState::Completed).collect();
    completed.sort_by_key(|r| std::cmp::Reverse(r.id));
    let keep = policy.count.map_or(usize::MAX, |c| usize::try_from(c).unwrap_or(usize::MAX));
    let too_many: Vec<BackupId> = completed.iter().skip(keep).map(|r| r.id).collect();
    let cutoff = policy.days.map(|d| now - Duration::days(i64::from(d)));
    let mut plan: Vec<BackupId> = records
        .iter()
        .filter(|r| matches!(r.state, BackupState::Completed | BackupState::Failed))
        .filter(|r| {
            let expired = r.expires_at.is_some_and(|at| at <= now);
            let old = cutoff.is_some_and(|cutoff| r.created_at < cutoff);
            expired || old || too_many.contains(&r.id)
        })
        .map(|r| r.id)
        .filter(|id| Some(*id) != protected)
        .collect();
    plan.sort();
    plan
}

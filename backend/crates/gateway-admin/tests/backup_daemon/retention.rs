//! Retention never deletes the newest verified backup, whatever the policy says.

use gateway_admin::backup::{BackupId, BackupRecord, BackupState, BackupTrigger};
use gateway_admin::backup_daemon::retention::{RetentionPolicy, protected_backup, retention_plan};
use proptest::prelude::*;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

const NOW: OffsetDateTime = datetime!(2026-12-01 12:00 UTC);

fn record(id: i64, state: BackupState, age_days: i64, verified: bool) -> BackupRecord {
    let created = NOW - Duration::days(age_days);
    BackupRecord {
        id: BackupId(id),
        trigger: BackupTrigger::Scheduled,
        state,
        object_key: Some(format!("k{id}")),
        size_bytes: Some(1),
        sha256: Some([0; 32]),
        error_code: None,
        error_message: None,
        expires_at: None,
        created_at: created,
        started_at: Some(created),
        finished_at: Some(created),
        updated_at: created,
        row_counts: None,
        bytes_done: 1,
        upload_id: None,
        verified_at: verified.then_some(created),
        verify_error: None,
    }
}

fn ids(list: &[i64]) -> Vec<BackupId> {
    list.iter().copied().map(BackupId).collect()
}

#[test]
fn count_keeps_the_newest_and_days_drop_the_old() {
    let records: Vec<_> = (1..=5).map(|i| record(i, BackupState::Completed, 10 - i, true)).collect();
    let by_count = retention_plan(&records, RetentionPolicy { count: Some(2), days: None }, NOW);
    assert_eq!(by_count, ids(&[1, 2, 3]));
    // ages 9, 8, 7, 6, 5 days: older than 7 days are 1 and 2
    let by_days = retention_plan(&records, RetentionPolicy { count: None, days: Some(7) }, NOW);
    assert_eq!(by_days, ids(&[1, 2]));
    assert!(retention_plan(&records, RetentionPolicy::default(), NOW).is_empty());
}

#[test]
fn the_newest_verified_backup_survives_even_when_everything_is_too_old() {
    let records = vec![
        record(1, BackupState::Completed, 30, true),
        record(2, BackupState::Completed, 20, false),
        record(3, BackupState::Failed, 10, false),
    ];
    // everything is older than a day and the count allows one: the newest *verified* (1) stays,
    // not the newest completed (2)
    let plan = retention_plan(&records, RetentionPolicy { count: Some(1), days: Some(1) }, NOW);
    assert_eq!(plan, ids(&[2, 3]));
    assert_eq!(protected_backup(&records), Some(BackupId(1)));
}

#[test]
fn without_a_verified_backup_the_newest_completed_one_is_kept() {
    let records = vec![record(1, BackupState::Completed, 30, false), record(2, BackupState::Completed, 20, false)];
    let plan = retention_plan(&records, RetentionPolicy { count: None, days: Some(1) }, NOW);
    assert_eq!(plan, ids(&[1]));
}

#[test]
fn expiry_deletes_but_running_and_deleting_jobs_are_never_chosen() {
    let mut expired = record(1, BackupState::Completed, 1, false);
    expired.expires_at = Some(NOW - Duration::hours(1));
    let records = vec![
        expired,
        record(2, BackupState::Completed, 1, true),
        record(3, BackupState::Uploading, 400, false),
        record(4, BackupState::Deleting, 400, false),
    ];
    assert_eq!(retention_plan(&records, RetentionPolicy { count: None, days: Some(30) }, NOW), ids(&[1]));
}

fn state() -> impl Strategy<Value = BackupState> {
    prop_oneof![
        Just(BackupState::Completed),
        Just(BackupState::Failed),
        Just(BackupState::Uploading),
        Just(BackupState::Deleting),
    ]
}

proptest! {
    #[test]
    fn no_policy_ever_deletes_the_newest_verified_backup(
        rows in prop::collection::vec((state(), 0i64..400, any::<bool>()), 1..30),
        count in prop::option::of(1u32..5),
        days in prop::option::of(1u32..60),
    ) {
        let records: Vec<_> = rows.iter().enumerate()
            .map(|(i, (s, age, v))| record(i as i64 + 1, *s, *age, *v))
            .collect();
        let plan = retention_plan(&records, RetentionPolicy { count, days }, NOW);
        let newest_verified = records.iter().filter(|r| r.is_verified()).map(|r| r.id).max();
        if let Some(id) = newest_verified {
            prop_assert!(!plan.contains(&id));
        }
        prop_assert!(plan.iter().all(|id| records.iter().any(|r| r.id == *id
            && matches!(r.state, BackupState::Completed | BackupState::Failed))));
    }
}

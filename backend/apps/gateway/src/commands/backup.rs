//! `switchboard backup restore ID --into DEST [--yes]`: downloads a backup (its SHA-256 checked
//! on the way), restores it into DEST — an empty PostgreSQL database (`postgres://…`) or a new
//! SQLite file — stopping on the first error, compares the restored rows per table with the
//! dump's, then checks the migrations of the restored database against this binary.

use crate::config::Config;
use gateway_admin::backup::BackupId;
use gateway_admin::backup_daemon::{BackupDaemon, BackupDaemonConfig, compare_row_counts};
use gateway_store::backup::RestoreMode;

use super::failed;
use super::instance::open;
use crate::bootstrap::StartError;

pub async fn restore(mut config: Config, id: i64, into: String, yes: bool) -> Result<(), StartError> {
    let storage = open(&mut config).await?;
    let outcome = restore_with(&storage, BackupId(id), &into, yes).await;
    storage.close().await;
    let restored = outcome?;
    check_migrations(&into).await?;
    println!(
        "restored backup {id} into {}: {restored} tables, row counts match the dump; migrations verified",
        redacted(&into)
    );
    Ok(())
}

async fn restore_with(
    storage: &crate::bootstrap::Storage,
    id: BackupId,
    into: &str,
    yes: bool,
) -> Result<usize, StartError> {
    let record = storage.facts.get_backup(id).await.map_err(failed)?;
    let (Some(key), Some(sha)) = (&record.object_key, record.sha256) else {
        return Err(failed(format!("backup {id} is {} and has no completed object", record.state)));
    };
    let daemon = BackupDaemon::new(storage.facts.clone(), storage.backup_engine.clone(), BackupDaemonConfig::default());
    let target = daemon.target().await.map_err(failed)?;
    let mode = RestoreMode::Into { destination: into, allow_non_empty: yes };
    let restored = storage.backup_engine.restore(&target, key, sha, mode).await.map_err(failed)?;
    if let Some(expected) = &record.row_counts {
        compare_row_counts(expected, &restored).map_err(failed)?;
    }
    Ok(restored.len())
}

/// Applies what the restored database lacks and refuses one whose applied migrations differ
/// from this binary's (a backup of a newer version, or edited migrations).
async fn check_migrations(into: &str) -> Result<(), StartError> {
    let report = if into.starts_with("postgres://") || into.starts_with("postgresql://") {
        let store = gateway_store::postgres::connect(into, 2).await.map_err(failed)?;
        let report = store.migrate().await.map_err(failed);
        store.close().await;
        report?
    } else {
        let store = gateway_store::sqlite::open(std::path::Path::new(into), 1).await.map_err(failed)?;
        let report = store.migrate().await.map_err(failed);
        store.close().await;
        report?
    };
    tracing::info!(applied = ?report.applied, verified = report.verified, "restored database migrations checked");
    Ok(())
}

fn redacted(destination: &str) -> String {
    gateway_core::redaction::url_userinfo_redacted(destination)
}

//! A private staging directory (mode 0700) for the files a backup needs on disk (the SQLite
//! copy, a downloaded SQLite backup); removed with everything in it when dropped. The process
//! keeps a set of its live staging directories, so a sweep removes only what no job of this
//! process uses (what a hard kill left behind).

use std::collections::HashSet;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

use gateway_admin::ports::BackupFailure;

const DIR_PREFIX: &str = "switchboard-backup-";

static LIVE: LazyLock<Mutex<HashSet<PathBuf>>> = LazyLock::new(|| Mutex::new(HashSet::new()));

fn live() -> std::sync::MutexGuard<'static, HashSet<PathBuf>> {
    LIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) struct StagingDir {
    path: PathBuf,
}

impl StagingDir {
    pub(crate) fn create(parent: &Path) -> Result<Self, BackupFailure> {
        let path = parent.join(format!("{DIR_PREFIX}{}", uuid::Uuid::new_v4().simple()));
        live().insert(path.clone());
        let created = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&path);
        if let Err(e) = created {
            live().remove(&path);
            return Err(BackupFailure::new("staging", format!("creating {}: {e}", path.display())));
        }
        Ok(Self { path })
    }

    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for StagingDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.path) {
            tracing::warn!(path = %self.path.display(), error = %e, "removing a backup staging directory failed");
        }
        live().remove(&self.path);
    }
}

/// Removes the `switchboard-backup-*` entries under `parent` that are not a live staging
/// directory of this process; a missing `parent` has none. Returns the paths removed.
pub(crate) fn sweep(parent: &Path) -> Result<Vec<String>, BackupFailure> {
    let fail = |e: std::io::Error| BackupFailure::new("staging", format!("sweeping {}: {e}", parent.display()));
    let entries = match std::fs::read_dir(parent) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(fail(e)),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(fail)?;
        let path = entry.path();
        let ours = entry.file_name().to_str().is_some_and(|n| n.starts_with(DIR_PREFIX));
        if !ours || live().contains(&path) {
            continue;
        }
        let gone = if entry.file_type().map_err(fail)?.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        match gone {
            Ok(()) => removed.push(path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(fail(e)),
        }
    }
    Ok(removed)
}

//! A private staging directory (mode 0700) for the files a backup needs on disk (the SQLite
//! copy, a downloaded SQLite backup); removed with everything in it when dropped.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use gateway_admin::ports::BackupFailure;

pub(crate) struct StagingDir {
    path: PathBuf,
}

impl StagingDir {
    pub(crate) fn create(parent: &Path) -> Result<Self, BackupFailure> {
        let path = parent.join(format!("switchboard-backup-{}", uuid::Uuid::new_v4().simple()));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&path)
            .map_err(|e| BackupFailure::new("staging", format!("creating {}: {e}", path.display())))?;
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
    }
}

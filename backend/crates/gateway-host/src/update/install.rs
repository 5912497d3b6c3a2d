//! The installed binary on disk: staging a new one beside it, swapping it in atomically while
//! keeping the previous one (`<binary>.previous`), and putting the previous one back.
//!
//! Every step is a `rename` within one directory, so the binary's path always names a complete
//! executable: a crash at any point leaves either the old or the new one there.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::UpdateError;

#[derive(Debug, Clone)]
pub struct Installation {
    binary: PathBuf,
}

impl Installation {
    /// `binary` is the running executable's resolved path.
    pub fn new(binary: PathBuf) -> Self {
        Self { binary }
    }

    pub fn binary(&self) -> &Path {
        &self.binary
    }

    /// `<binary>.previous`: the version before the last swap.
    pub fn previous(&self) -> PathBuf {
        self.sibling(".previous", false)
    }

    /// A hidden file beside the binary for a download or a staged binary.
    pub fn staging(&self, label: &str) -> PathBuf {
        self.sibling(&format!(".{label}-{}", std::process::id()), true)
    }

    pub fn has_previous(&self) -> bool {
        self.previous().is_file()
    }

    /// Whether the directory lets this process create and rename files (a binary installed by a
    /// package manager under a root-owned directory does not).
    pub fn check_writable(&self) -> Result<(), String> {
        let probe = self.staging("write-probe");
        let created = std::fs::OpenOptions::new().write(true).create_new(true).open(&probe);
        match created {
            Ok(_) => {
                let _ = std::fs::remove_file(&probe);
                Ok(())
            }
            Err(e) => Err(format!("cannot write next to {}: {e}", self.binary.display())),
        }
    }

    /// Makes `staged` the binary; the binary before becomes `<binary>.previous` (replacing an
    /// older one).
    pub fn swap_in(&self, staged: &Path) -> io::Result<()> {
        let previous = self.previous();
        remove_if_present(&previous)?;
        link_or_copy(&self.binary, &previous)?;
        std::fs::rename(staged, &self.binary)?;
        self.sync_dir()
    }

    /// Puts `<binary>.previous` back as the binary (the new one is discarded).
    pub fn restore_previous(&self) -> io::Result<()> {
        std::fs::rename(self.previous(), &self.binary)?;
        self.sync_dir()
    }

    /// Exchanges the binary and `<binary>.previous` (a rollback keeps what it rolled back from).
    pub fn exchange(&self) -> io::Result<()> {
        let held = self.staging("exchange");
        remove_if_present(&held)?;
        link_or_copy(&self.binary, &held)?;
        std::fs::rename(self.previous(), &self.binary)?;
        std::fs::rename(&held, self.previous())?;
        self.sync_dir()
    }

    fn sibling(&self, suffix: &str, hidden: bool) -> PathBuf {
        let name = self.binary.file_name().map(OsString::from).unwrap_or_else(|| OsString::from("switchboard"));
        let mut file = OsString::from(if hidden { "." } else { "" });
        file.push(name);
        file.push(suffix);
        self.binary.with_file_name(file)
    }

    fn sync_dir(&self) -> io::Result<()> {
        match self.binary.parent() {
            Some(dir) => std::fs::File::open(dir)?.sync_all(),
            None => Ok(()),
        }
    }
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// A second name for `from` (a hard link), or a copy with its permissions where links fail.
fn link_or_copy(from: &Path, to: &Path) -> io::Result<()> {
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to)?;
    std::fs::File::open(to)?.sync_all()
}

/// Runs `<binary> version` and returns the version it prints: a staged binary must start on
/// this machine and say the version the release promised before it is swapped in.
pub async fn reported_version(binary: &Path) -> Result<String, UpdateError> {
    let run = tokio::process::Command::new(binary)
        .arg("version")
        .env_remove(crate::build_info::VERSION_OVERRIDE_ENV)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(20), run)
        .await
        .map_err(|_| UpdateError::Verification("the new binary did not answer `version` within 20 s".into()))?
        .map_err(|e| UpdateError::Verification(format!("the new binary does not start on this machine: {e}")))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    match stdout.trim().strip_prefix("switchboard ") {
        Some(version) if output.status.success() => Ok(version.to_owned()),
        _ => Err(UpdateError::Verification(format!(
            "the new binary's `version` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))),
    }
}

//! The embedded mode's data directory (`server.data_dir`): created private (0700), held by one
//! `serve` at a time (an advisory lock on `switchboard.lock`), and the home of the generated
//! master key (`master.key`, 0600) and the SQLite file. Decision 0186.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use crate::config::Config;
use gateway_host::ConfigError;

use crate::bootstrap::StartError;

/// The lock file a serving process holds.
pub const LOCK_FILE: &str = "switchboard.lock";
/// The master key generated on the first start of an embedded install.
pub const MASTER_KEY_FILE: &str = "master.key";
/// The embedded store.
pub const DATABASE_FILE: &str = "switchboard.sqlite";

/// Creates `dir` (and its parents) with mode 0700 when it is missing.
pub fn ensure(dir: &Path) -> Result<(), StartError> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| StartError::Storage(format!("cannot create the data directory {}: {e}", dir.display())))
}

/// The exclusive hold of a data directory by one serving process; released when dropped (or
/// when the process ends, however it ends: the kernel drops the lock with the file).
#[derive(Debug)]
pub struct DataDirLock {
    _file: File,
}

/// Takes the data directory for this process, or says which process has it.
pub fn lock(dir: &Path) -> Result<DataDirLock, StartError> {
    let path = dir.join(LOCK_FILE);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| StartError::Storage(format!("cannot open {}: {e}", path.display())))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let who = if holder.is_empty() { String::new() } else { format!(" (pid {holder})") };
            return Err(StartError::Storage(format!(
                "another switchboard is already serving from the data directory {}{who}: the embedded mode runs \
                 one process per data directory. Stop it, or give this one another server.data_dir \
                 (several replicas need the production mode: database.url and redis.url)",
                absolute(dir).display()
            )));
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(StartError::Storage(format!("cannot lock {}: {e}", path.display())));
        }
    }
    // Who holds it, for the next process's message.
    let _ = file.set_len(0);
    let _ = file.rewind();
    let _ = writeln!(file, "{}", std::process::id());
    Ok(DataDirLock { _file: file })
}

/// Whether a process serves from `dir` now (holds its lock).
pub fn is_served(dir: &Path) -> bool {
    match File::open(dir.join(LOCK_FILE)) {
        Ok(file) => matches!(file.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock)),
        Err(_) => false,
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// Puts the embedded install's master key into `config` when none is configured: the one in
/// `master.key`, or a new one written there (0600) on the first start of an empty directory.
/// A configured key that differs from the file's (and does not retire it) is refused: data
/// written under it could not be opened by a process using the file, and the reverse.
pub fn resolve_master_key(config: &mut Config) -> Result<(), StartError> {
    let dir = config.server.data_dir.clone();
    let path = dir.join(MASTER_KEY_FILE);
    let stored = read_key(&path)?;
    match (&config.secrets.master_key, stored) {
        (Some(configured), Some(stored)) => {
            let retired = config.secrets.retired_master_keys.iter().any(|k| k.trim() == stored);
            if configured.trim() != stored && !retired {
                return Err(StartError::Config(ConfigError::invalid(
                    "secrets.master_key",
                    &format!(
                        "differs from the master key of this data directory ({}): data written under one cannot \
                         be opened with the other. Unset it to use the file, or list the file's key in \
                         secrets.retired_master_keys while rotating (docs/operations.md)",
                        absolute(&path).display()
                    ),
                )));
            }
        }
        (Some(_), None) => {}
        (None, Some(stored)) => config.secrets.master_key = Some(stored),
        (None, None) => {
            let database = dir.join(DATABASE_FILE);
            if database.exists() {
                return Err(StartError::Config(ConfigError::invalid(
                    "secrets.master_key",
                    &format!(
                        "is not set and {} is missing, but {} holds data sealed under a master key: restore \
                         the file or configure the key it was written with",
                        absolute(&path).display(),
                        absolute(&database).display()
                    ),
                )));
            }
            config.secrets.master_key = Some(generate_key(&path)?);
        }
    }
    Ok(())
}

fn read_key(path: &Path) -> Result<Option<String>, StartError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text.trim().to_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StartError::Storage(format!("cannot read {}: {e}", path.display()))),
    }
}

/// Writes a new key to `path` (created 0600, never overwriting: a concurrent first start that
/// won the race keeps its key, and that one is used).
fn generate_key(path: &Path) -> Result<String, StartError> {
    let id = crate::cli::default_key_id();
    let key = gateway_store::crypto::MasterKey::generate(&id)
        .map_err(|e| StartError::Wiring(format!("cannot generate a master key: {e}")))?;
    let text = secrecy::ExposeSecret::expose_secret(&key.to_config_value()).to_owned();
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(mut file) => {
            writeln!(file, "{text}")
                .and_then(|()| file.sync_all())
                .map_err(|e| StartError::Storage(format!("cannot write {}: {e}", path.display())))?;
            tracing::info!(path = %absolute(path).display(), "generated the master key of this data directory");
            Ok(text)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            read_key(path)?.ok_or_else(|| StartError::Storage(format!("{} vanished while it was read", path.display())))
        }
        Err(e) => Err(StartError::Storage(format!("cannot create {}: {e}", path.display()))),
    }
}

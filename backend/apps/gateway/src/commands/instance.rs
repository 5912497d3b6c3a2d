//! How a command finds the instance it acts on: the same configuration, storage mode, data
//! directory and master key as `switchboard serve` (decision 0187), and a refusal to write
//! under a master key that opens none of the stored credentials.

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use gateway_core::snapshot::{Reconciler, RuntimeSnapshot, SnapshotHolder};
use gateway_host::ConfigError;

use crate::bootstrap::{Facts, Role, StartError, Storage, open_storage};

/// The storage `serve` would open (a running embedded server keeps its lock; a command opens
/// the file beside it), after checking the master key against what is stored.
pub async fn open(config: &mut Config) -> Result<Storage, StartError> {
    let storage = open_storage(config, Role::Command).await?;
    if let Err(err) = check_master_key(&storage.facts).await {
        storage.close().await;
        return Err(err);
    }
    Ok(storage)
}

/// [`open`], for commands that need only the facts.
pub async fn open_facts(config: &mut Config) -> Result<Arc<dyn Facts>, StartError> {
    Ok(open(config).await?.facts)
}

/// Refuses a configured master key that opens none of the stored credentials: whatever this
/// command sealed would be unreadable to the server, and the server's to it.
async fn check_master_key(facts: &Arc<dyn Facts>) -> Result<(), StartError> {
    let holder = SnapshotHolder::new(RuntimeSnapshot::empty());
    Reconciler::new(facts.clone(), holder.clone(), Duration::from_secs(60))
        .reload()
        .await
        .map_err(|e| StartError::Storage(format!("cannot read the stored accounts: {e}")))?;
    let coverage = holder.current().credential_coverage();
    if coverage.opens_none() {
        let ids = coverage.unreadable_key_ids.iter().map(String::as_str).collect::<Vec<_>>().join(", ");
        return Err(StartError::Config(ConfigError::invalid(
            "secrets.master_key",
            &format!(
                "it opens none of the {} stored credentials (sealed with key id {ids}): this command would write \
                 under another key than the server's. Use the server's configuration (the same --config, \
                 SWITCHBOARD_* variables and server.data_dir)",
                coverage.stored
            ),
        )));
    }
    Ok(())
}

/// `switchboard instance`: where this configuration's instance lives, as `name=value` lines
/// (what `scripts/run` prints for a newcomer). Opens nothing.
pub fn describe(config: &Config) -> Result<(), StartError> {
    use crate::bootstrap::Mode;
    use crate::bootstrap::storage::{DATABASE_FILE, MASTER_KEY_FILE};
    let dir = std::path::absolute(&config.server.data_dir).unwrap_or_else(|_| config.server.data_dir.clone());
    let listen = super::healthcheck::probe_address(config.server.listen);
    let mode = Mode::of(config);
    println!("mode={}", if mode == Mode::Embedded { "embedded" } else { "production" });
    println!("url=http://{listen}");
    println!("data_dir={}", dir.display());
    println!("admin_password_file={}", dir.join(crate::bootstrap::PASSWORD_FILE).display());
    if mode == Mode::Embedded {
        println!("database={}", dir.join(DATABASE_FILE).display());
        if config.secrets.master_key.is_none() {
            println!("master_key_file={}", dir.join(MASTER_KEY_FILE).display());
        }
    } else {
        println!("database=postgres");
    }
    Ok(())
}

//! `switchboard secrets reseal`: the second step of a master-key rotation.

use crate::config::Config;
use gateway_store::postgres::SealedKind;

use crate::bootstrap::StartError;

/// Re-seals every sealed secret (account credentials, TOTP secrets, backup storage secrets)
/// under `secrets.master_key`, `batch` rows per committed transaction, and prints the counts
/// per kind. Safe to interrupt and to run again. Fails (exit 1) while anything is still sealed
/// under another key, so a script does not drop the retired key too early.
pub async fn reseal(mut config: Config, batch: u32) -> Result<(), StartError> {
    let store = super::instance::open_facts(&mut config).await?;
    let mut remaining = 0;
    for kind in SealedKind::ALL {
        let counts = store.reseal_kind(kind, batch).await.map_err(StartError::Storage)?;
        println!(
            "{}: {} resealed, {} unreadable, {} skipped, {} remaining",
            kind.as_str(),
            counts.resealed,
            counts.unreadable,
            counts.skipped,
            counts.remaining
        );
        remaining += counts.remaining;
    }
    store.close().await;
    if remaining == 0 {
        eprintln!("every sealed secret is under the current master key: the retired keys can be removed");
        return Ok(());
    }
    Err(StartError::Wiring(format!(
        "{remaining} secret(s) are still sealed under another key: run again after every replica uses the new \
         master key; unreadable ones need their old key configured (or the account re-authorised)"
    )))
}

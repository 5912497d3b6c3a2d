//! Account use cases: export (import lives in `account_import`).

use std::sync::Arc;

use gateway_core::credential_import::CredentialImporter;
use gateway_core::domain::{AccountId, AccountRecord, CredentialSlot};
use serde_json::{Value, json};

use crate::audit::{AuditActor, AuditEntry};
use crate::error::AdminError;
use crate::ports::{AccountDirectory, UnitOfWork};

/// Writes the export bundle of the given accounts (all when `ids` is empty). The caller must
/// have obtained an explicit confirmation; the export is audited without its content.
pub async fn export_accounts(
    directory: &dyn AccountDirectory,
    uow: &dyn UnitOfWork,
    importers: &[Arc<dyn CredentialImporter>],
    actor: AuditActor,
    ids: &[AccountId],
) -> Result<Value, AdminError> {
    let accounts: Vec<AccountRecord> =
        directory.list_accounts().await?.into_iter().filter(|a| ids.is_empty() || ids.contains(&a.id)).collect();
    let mut entries = Vec::with_capacity(accounts.len());
    for account in &accounts {
        let importer = importers
            .iter()
            .find(|i| i.provider() == account.provider)
            .ok_or_else(|| AdminError::Credential(format!("no exporter for provider {}", account.provider)))?;
        let CredentialSlot::Available(document) = &account.credential else {
            return Err(AdminError::Credential(format!("account {} has an unreadable credential", account.id)));
        };
        entries.push(importer.export_entry(document, &account.profile).map_err(|e| AdminError::Credential(e.0))?);
    }
    let exported: Vec<i64> = accounts.iter().map(|a| a.id.0).collect();
    let tx = uow.begin().await?;
    tx.commit(AuditEntry::new(actor, "account.export", "account", None, json!({"accounts": exported}))).await?;
    Ok(json!({"format": "switchboard.accounts.v1", "accounts": entries}))
}

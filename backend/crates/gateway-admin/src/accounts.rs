//! Account use cases: import (many formats, one pipeline), export, listing.

use std::sync::Arc;

use gateway_core::credential_import::CredentialImporter;
use gateway_core::domain::{AccountId, AccountRecord, CredentialSlot};
use serde_json::{Value, json};

use crate::audit::{AuditActor, AuditEntry};
use crate::error::AdminError;
use crate::ports::admin_changes::AccountImport;
use crate::ports::{AccountDirectory, UnitOfWork};

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReport {
    pub created: Vec<AccountId>,
    pub updated: Vec<AccountId>,
}

/// Imports every credential in `input` in one unit of work: all or nothing, one audit row.
/// Existing accounts (same provider account id) get the new credential and keep their
/// scheduling facts, groups and quota.
pub async fn import_accounts(
    uow: &dyn UnitOfWork,
    importer: &dyn CredentialImporter,
    actor: AuditActor,
    input: &[u8],
) -> Result<ImportReport, AdminError> {
    let credentials = importer.decode(input).await.map_err(|e| AdminError::Credential(e.0))?;
    if credentials.is_empty() {
        return Err(AdminError::invalid("input", "no credential found"));
    }
    let mut tx = uow.begin().await?;
    let mut report = ImportReport { created: Vec::new(), updated: Vec::new() };
    for credential in credentials {
        let outcome = tx
            .import_account(AccountImport {
                provider: importer.provider(),
                external_account_id: credential.external_account_id,
                profile: credential.profile,
                document: credential.document,
                facts: credential.facts,
                provider_data: credential.provider_data,
            })
            .await?;
        if outcome.created { report.created.push(outcome.account_id) } else { report.updated.push(outcome.account_id) }
    }
    let ids = |list: &[AccountId]| list.iter().map(|a| a.0).collect::<Vec<_>>();
    let audit = AuditEntry::new(
        actor,
        "account.import",
        "account",
        None,
        json!({"provider": importer.provider().as_str(), "created": ids(&report.created), "updated": ids(&report.updated)}),
    );
    tx.commit(audit).await?;
    Ok(report)
}

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

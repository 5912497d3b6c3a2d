//! Account import: the input is read once, each refresh-only entry is exchanged once (refresh
//! tokens are single use upstream), and every credential obtained is stored.
//!
//! Rules (decision 0141):
//! - a malformed entry refuses the whole input before anything is sent upstream;
//! - a dry run ([`preview_import`]) never exchanges: a refresh-only entry is reported as
//!   [`EntryAction::Exchange`] (shape checked, account unknown until the real import);
//! - the transaction is opened before the first exchange (storage is reachable before a token
//!   is spent); an entry the upstream refuses is reported as [`EntryAction::Failed`] with the
//!   upstream's code and does not undo the others — a rotated pair is never dropped;
//! - when no entry could be stored the import fails (`credential_rejected`), nothing written.

use std::collections::HashSet;

use gateway_core::credential_import::{CandidateContent, CredentialImporter, ImportCandidate, ImportedCredential};
use gateway_core::domain::{AccountId, CredentialState};
use serde_json::json;

use crate::audit::{AuditActor, AuditEntry};
use crate::error::AdminError;
use crate::ports::admin_changes::AccountImport;
use crate::ports::{AccountDirectory, UnitOfWork};

/// What happened (or, in a dry run, would happen) to one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryAction {
    Create,
    Update,
    /// Dry run only: a refresh token whose shape is valid; the import exchanges it.
    Exchange,
    /// The upstream refused the exchange; nothing stored for this entry.
    Failed,
}

impl EntryAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Update => "update",
            Self::Exchange => "exchange",
            Self::Failed => "failed",
        }
    }
}

/// One entry of an import report (numbered from 1 in input order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryReport {
    pub entry: usize,
    pub action: EntryAction,
    /// Set once stored.
    pub account_id: Option<AccountId>,
    /// Unknown for an entry not exchanged (dry run) or refused.
    pub external_account_id: Option<String>,
    pub email: Option<String>,
    pub plan_type: Option<String>,
    pub credential_state: Option<CredentialState>,
    /// The upstream's code for a refused exchange (`invalid_grant`, `refresh_token_reused`, …).
    pub error: Option<String>,
}

impl EntryReport {
    fn known(entry: usize, action: EntryAction, credential: &ImportedCredential) -> Self {
        Self {
            entry,
            action,
            account_id: None,
            external_account_id: Some(credential.external_account_id.clone()),
            email: credential.profile.email.clone(),
            plan_type: credential.profile.plan_type.clone(),
            credential_state: Some(credential.facts.state),
            error: None,
        }
    }

    fn unknown(entry: usize, action: EntryAction, error: Option<String>) -> Self {
        Self {
            entry,
            action,
            account_id: None,
            external_account_id: None,
            email: None,
            plan_type: None,
            credential_state: None,
            error,
        }
    }
}

/// What an import did (or would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReport {
    pub dry_run: bool,
    pub entries: Vec<EntryReport>,
    pub created: Vec<AccountId>,
    pub updated: Vec<AccountId>,
}

impl ImportReport {
    /// The entries the upstream refused.
    pub fn failed(&self) -> impl Iterator<Item = &EntryReport> {
        self.entries.iter().filter(|e| e.action == EntryAction::Failed)
    }
}

fn parse(importer: &dyn CredentialImporter, input: &[u8]) -> Result<Vec<ImportCandidate>, AdminError> {
    let candidates = importer.parse(input).map_err(|e| AdminError::Credential(e.0))?;
    if candidates.is_empty() {
        return Err(AdminError::invalid("input", "no credential found"));
    }
    Ok(candidates)
}

/// The dry run: checks the shape of every entry and says what the import would do. Sends
/// nothing upstream and writes nothing.
pub async fn preview_import(
    directory: &dyn AccountDirectory,
    importer: &dyn CredentialImporter,
    input: &[u8],
) -> Result<ImportReport, AdminError> {
    let candidates = parse(importer, input)?;
    let existing: HashSet<String> = directory
        .list_accounts()
        .await?
        .into_iter()
        .filter(|a| a.provider == importer.provider())
        .map(|a| a.external_account_id)
        .collect();
    let entries = candidates
        .iter()
        .map(|candidate| match &candidate.content {
            CandidateContent::Ready(credential) => {
                let action = if existing.contains(&credential.external_account_id) {
                    EntryAction::Update
                } else {
                    EntryAction::Create
                };
                EntryReport::known(candidate.entry, action, credential)
            }
            CandidateContent::NeedsExchange(_) => EntryReport::unknown(candidate.entry, EntryAction::Exchange, None),
        })
        .collect();
    Ok(ImportReport { dry_run: true, entries, created: Vec::new(), updated: Vec::new() })
}

/// Imports every credential in `input` in one unit of work with one audit row. Existing
/// accounts (same provider account id) get the new credential and keep their scheduling facts,
/// groups and quota. See the module rules for refused exchanges.
pub async fn import_accounts(
    uow: &dyn UnitOfWork,
    importer: &dyn CredentialImporter,
    actor: AuditActor,
    input: &[u8],
) -> Result<ImportReport, AdminError> {
    let candidates = parse(importer, input)?;
    // Opened before the first exchange: a spent token must find the database reachable.
    let mut tx = uow.begin().await?;
    let mut report = ImportReport { dry_run: false, entries: Vec::new(), created: Vec::new(), updated: Vec::new() };
    for candidate in candidates {
        let credential = match candidate.content {
            CandidateContent::Ready(credential) => *credential,
            CandidateContent::NeedsExchange(seed) => match importer.exchange(seed).await {
                Ok(credential) => credential,
                Err(failure) => {
                    let entry = EntryReport::unknown(candidate.entry, EntryAction::Failed, Some(failure.code));
                    report.entries.push(entry);
                    continue;
                }
            },
        };
        let mut entry = EntryReport::known(candidate.entry, EntryAction::Create, &credential);
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
        entry.account_id = Some(outcome.account_id);
        if outcome.created {
            report.created.push(outcome.account_id);
        } else {
            entry.action = EntryAction::Update;
            report.updated.push(outcome.account_id);
        }
        report.entries.push(entry);
    }
    let failed: Vec<_> = report.failed().map(|e| json!({"entry": e.entry, "error": e.error})).collect();
    if report.created.is_empty() && report.updated.is_empty() {
        let reasons: Vec<String> = report
            .failed()
            .map(|e| format!("entry {}: {}", e.entry, e.error.as_deref().unwrap_or("refused")))
            .collect();
        return Err(AdminError::Credential(format!("no credential could be imported ({})", reasons.join("; "))));
    }
    let ids = |list: &[AccountId]| list.iter().map(|a| a.0).collect::<Vec<_>>();
    let details = json!({
        "provider": importer.provider().as_str(),
        "created": ids(&report.created),
        "updated": ids(&report.updated),
        "failed": failed,
    });
    tx.commit(AuditEntry::new(actor, "account.import", "account", None, details)).await?;
    Ok(report)
}

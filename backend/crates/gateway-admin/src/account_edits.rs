//! Admin edits of accounts: scheduling facts (enabled, cap, weight), group membership, delete,
//! and batches of those. Each call is one unit of work with one audit row; credentials, profile
//! and quota are never touched here.

use serde_json::json;

use gateway_core::domain::{AccountId, GroupId, SchedulingFacts, Weight};

use crate::audit::{AuditActor, AuditEntry};
use crate::error::AdminError;
use crate::ports::{AccountDirectory, AdminTransaction, UnitOfWork};

/// Fields to change; `None` keeps the stored value. `concurrency_cap: Some(None)` inherits the
/// runtime default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountPatch {
    pub enabled: Option<bool>,
    pub concurrency_cap: Option<Option<u32>>,
    pub weight: Option<u8>,
    /// The complete group set.
    pub groups: Option<Vec<GroupId>>,
}

/// The editable facts of an account (the "before" of an edit, for undo).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountSettings {
    pub scheduling: SchedulingFacts,
    pub groups: Vec<GroupId>,
}

fn validate(patch: &AccountPatch) -> Result<(), AdminError> {
    if let Some(Some(cap)) = patch.concurrency_cap
        && !(1..=10_000).contains(&cap)
    {
        return Err(AdminError::invalid("concurrencyCap", "must be 1 to 10000, or null to inherit the default"));
    }
    if let Some(weight) = patch.weight
        && Weight::new(weight).is_err()
    {
        return Err(AdminError::invalid("weight", "must be 1 to 100"));
    }
    Ok(())
}

async fn apply(
    tx: &mut Box<dyn AdminTransaction>,
    directory: &dyn AccountDirectory,
    id: AccountId,
    patch: &AccountPatch,
) -> Result<(AccountSettings, serde_json::Value), AdminError> {
    let account = directory.get_account(id).await?;
    let groups = directory.account_groups(id).await?;
    let before = AccountSettings { scheduling: account.scheduling.clone(), groups: groups.clone() };
    let mut after = account.scheduling.clone();
    if let Some(enabled) = patch.enabled {
        after.enabled = enabled;
    }
    if let Some(cap) = patch.concurrency_cap {
        after.concurrency_cap = cap;
    }
    if let Some(weight) = patch.weight {
        after.weight = Weight::new(weight).map_err(|_| AdminError::invalid("weight", "must be 1 to 100"))?;
    }
    let mut details = serde_json::Map::new();
    if after != before.scheduling {
        tx.update_account_scheduling(id, &after).await?;
        details.insert("enabled".into(), json!(format!("{} -> {}", before.scheduling.enabled, after.enabled)));
        details.insert("concurrency_cap".into(), json!([before.scheduling.concurrency_cap, after.concurrency_cap]));
        details.insert("weight".into(), json!(format!("{} -> {}", before.scheduling.weight.get(), after.weight.get())));
    }
    if let Some(new_groups) = &patch.groups {
        let mut new_groups = new_groups.clone();
        new_groups.sort();
        new_groups.dedup();
        if new_groups != groups {
            tx.replace_account_groups(id, &new_groups).await.map_err(|e| match AdminError::from(e) {
                AdminError::Invalid { .. } => AdminError::invalid("groupIds", "a group does not exist"),
                other => other,
            })?;
            details.insert(
                "groups".into(),
                json!([
                    groups.iter().map(|g| g.0).collect::<Vec<_>>(),
                    new_groups.iter().map(|g| g.0).collect::<Vec<_>>()
                ]),
            );
        }
    }
    Ok((before, serde_json::Value::Object(details)))
}

/// Edits one account; returns its editable facts before the change.
pub async fn update_account(
    uow: &dyn UnitOfWork,
    directory: &dyn AccountDirectory,
    actor: AuditActor,
    id: AccountId,
    patch: AccountPatch,
) -> Result<AccountSettings, AdminError> {
    validate(&patch)?;
    let mut tx = uow.begin().await?;
    let (before, details) = apply(&mut tx, directory, id, &patch).await?;
    tx.commit(AuditEntry::new(actor, "account.update", "account", Some(id.0.to_string()), details)).await?;
    Ok(before)
}

pub async fn delete_account(
    uow: &dyn UnitOfWork,
    directory: &dyn AccountDirectory,
    actor: AuditActor,
    id: AccountId,
) -> Result<(), AdminError> {
    let account = directory.get_account(id).await?;
    let mut tx = uow.begin().await?;
    tx.delete_account(id).await?;
    let details = json!({"provider": account.provider.as_str(), "external_account_id": account.external_account_id});
    tx.commit(AuditEntry::new(actor, "account.delete", "account", Some(id.0.to_string()), details)).await?;
    Ok(())
}

/// One batch operation applied to every listed account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchAction {
    Update(AccountPatch),
    AddGroups(Vec<GroupId>),
    RemoveGroups(Vec<GroupId>),
    Delete,
}

/// Per-account result of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchItem {
    pub account: AccountId,
    /// `None` on success, else the stable error code and message.
    pub error: Option<(String, String)>,
    pub before: Option<AccountSettings>,
}

/// Applies `action` to each account in one unit of work (one audit row). Accounts that do not
/// exist are reported as failed; the rest are applied together.
pub async fn batch(
    uow: &dyn UnitOfWork,
    directory: &dyn AccountDirectory,
    actor: AuditActor,
    ids: &[AccountId],
    action: BatchAction,
) -> Result<Vec<BatchItem>, AdminError> {
    if ids.is_empty() || ids.len() > 1000 {
        return Err(AdminError::invalid("ids", "must list 1 to 1000 accounts"));
    }
    if let BatchAction::Update(patch) = &action {
        validate(patch)?;
    }
    let mut tx = uow.begin().await?;
    let mut items = Vec::with_capacity(ids.len());
    let mut applied = Vec::new();
    for &id in ids {
        let result = match &action {
            BatchAction::Delete => match directory.get_account(id).await {
                Ok(_) => tx.delete_account(id).await.map(|_| None).map_err(AdminError::from),
                Err(e) => Err(e.into()),
            },
            BatchAction::Update(patch) => apply(&mut tx, directory, id, patch).await.map(|(b, _)| Some(b)),
            BatchAction::AddGroups(add) | BatchAction::RemoveGroups(add) => match directory.account_groups(id).await {
                Ok(current) => {
                    let groups: Vec<GroupId> = if matches!(action, BatchAction::AddGroups(_)) {
                        current.iter().chain(add.iter()).copied().collect()
                    } else {
                        current.iter().filter(|g| !add.contains(g)).copied().collect()
                    };
                    let patch = AccountPatch { groups: Some(groups), ..AccountPatch::default() };
                    apply(&mut tx, directory, id, &patch).await.map(|(b, _)| Some(b))
                }
                Err(e) => Err(e.into()),
            },
        };
        match result {
            Ok(before) => {
                applied.push(id.0);
                items.push(BatchItem { account: id, error: None, before });
            }
            Err(AdminError::NotFound(_)) => items.push(BatchItem {
                account: id,
                error: Some(("not_found".to_owned(), format!("account {id} not found"))),
                before: None,
            }),
            Err(other) => return Err(other),
        }
    }
    let name = match &action {
        BatchAction::Update(_) => "update",
        BatchAction::AddGroups(_) => "add_groups",
        BatchAction::RemoveGroups(_) => "remove_groups",
        BatchAction::Delete => "delete",
    };
    let details = json!({"operation": name, "accounts": applied});
    tx.commit(AuditEntry::new(actor, "account.batch", "account", None, details)).await?;
    Ok(items)
}

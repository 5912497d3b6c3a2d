//! Account group use cases: create, edit, members, delete, and the impact of disabling or
//! deleting a group on the client keys scoped to it.

use serde_json::json;

use gateway_core::domain::{AccountGroup, AccountId, ClientKeyId, GroupId, KeyScope};

use crate::audit::{AuditActor, AuditEntry};
use crate::error::AdminError;
use crate::ports::{ClientKeyDirectory, GroupChanges, GroupDirectory, UnitOfWork};

/// A group to create.
#[derive(Debug, Clone, Default)]
pub struct GroupSpec {
    pub name: String,
    pub description: String,
    pub enabled: bool,
    pub members: Vec<AccountId>,
}

/// Fields to change; `None` keeps the stored value.
#[derive(Debug, Clone, Default)]
pub struct GroupPatch {
    pub name: Option<String>,
    pub description: Option<String>,
    pub enabled: Option<bool>,
}

fn validate(changes: &GroupChanges) -> Result<GroupChanges, AdminError> {
    let name = changes.name.trim().to_owned();
    let mut fields = Vec::new();
    if name.is_empty() || name.chars().count() > 100 {
        fields.push(crate::error::FieldError { field: "name".into(), message: "must be 1 to 100 characters".into() });
    }
    if changes.description.chars().count() > 1000 {
        fields.push(crate::error::FieldError {
            field: "description".into(),
            message: "must be at most 1000 characters".into(),
        });
    }
    if !fields.is_empty() {
        return Err(AdminError::InvalidFields(fields));
    }
    Ok(GroupChanges { name, description: changes.description.clone(), enabled: changes.enabled })
}

fn name_conflict(error: AdminError) -> AdminError {
    match error {
        AdminError::Conflict(_) => AdminError::Conflict("a group with this name exists".to_owned()),
        AdminError::Invalid { .. } => AdminError::invalid("members", "an account does not exist"),
        other => other,
    }
}

pub async fn create_group(uow: &dyn UnitOfWork, actor: AuditActor, spec: GroupSpec) -> Result<GroupId, AdminError> {
    let changes = validate(&GroupChanges { name: spec.name, description: spec.description, enabled: spec.enabled })?;
    let mut tx = uow.begin().await?;
    let id = tx.create_group(&changes).await.map_err(|e| name_conflict(e.into()))?;
    let mut members = spec.members;
    members.sort();
    members.dedup();
    if !members.is_empty() {
        tx.replace_group_members(id, &members).await.map_err(|e| name_conflict(e.into()))?;
    }
    let details = json!({"name": changes.name, "enabled": changes.enabled, "members": members.iter().map(|a| a.0).collect::<Vec<_>>()});
    tx.commit(AuditEntry::new(actor, "group.create", "group", Some(id.0.to_string()), details)).await?;
    Ok(id)
}

/// Applies `patch`; returns the group before the change (for undo).
pub async fn update_group(
    uow: &dyn UnitOfWork,
    groups: &dyn GroupDirectory,
    actor: AuditActor,
    id: GroupId,
    patch: GroupPatch,
) -> Result<AccountGroup, AdminError> {
    let before = groups.get_group(id).await?;
    let changes = validate(&GroupChanges {
        name: patch.name.unwrap_or_else(|| before.name.clone()),
        description: patch.description.unwrap_or_else(|| before.description.clone()),
        enabled: patch.enabled.unwrap_or(before.enabled),
    })?;
    let mut tx = uow.begin().await?;
    tx.update_group(id, &changes).await.map_err(|e| name_conflict(e.into()))?;
    let details = json!({
        "name": format!("{} -> {}", before.name, changes.name),
        "enabled": format!("{} -> {}", before.enabled, changes.enabled),
        "description_changed": before.description != changes.description,
    });
    tx.commit(AuditEntry::new(actor, "group.update", "group", Some(id.0.to_string()), details)).await?;
    Ok(before)
}

/// Replaces the member set; returns the members before.
pub async fn replace_members(
    uow: &dyn UnitOfWork,
    groups: &dyn GroupDirectory,
    actor: AuditActor,
    id: GroupId,
    mut members: Vec<AccountId>,
) -> Result<Vec<AccountId>, AdminError> {
    let before = groups.get_group(id).await?;
    members.sort();
    members.dedup();
    let mut tx = uow.begin().await?;
    tx.replace_group_members(id, &members).await.map_err(|e| name_conflict(e.into()))?;
    let added: Vec<i64> = members.iter().filter(|a| !before.account_ids.contains(a)).map(|a| a.0).collect();
    let removed: Vec<i64> = before.account_ids.iter().filter(|a| !members.contains(a)).map(|a| a.0).collect();
    let details = json!({"added": added, "removed": removed, "members": members.len()});
    tx.commit(AuditEntry::new(actor, "group.members", "group", Some(id.0.to_string()), details)).await?;
    Ok(before.account_ids)
}

/// Deletes a group no client key is bound to (binding keys first is the admin's explicit
/// choice: silently widening a key to all accounts is never an accident).
pub async fn delete_group(
    uow: &dyn UnitOfWork,
    groups: &dyn GroupDirectory,
    keys: &dyn ClientKeyDirectory,
    actor: AuditActor,
    id: GroupId,
) -> Result<(), AdminError> {
    let group = groups.get_group(id).await?;
    let impact = group_impact(groups, keys, id).await?;
    if !impact.keys.is_empty() {
        let ids: Vec<String> = impact.keys.iter().map(|k| k.0.to_string()).collect();
        return Err(AdminError::Conflict(format!(
            "client keys {} are scoped to this group; remove it from their scope first",
            ids.join(", ")
        )));
    }
    let mut tx = uow.begin().await?;
    tx.delete_group(id).await?;
    let details = json!({"name": group.name, "members": group.account_ids.len()});
    tx.commit(AuditEntry::new(actor, "group.delete", "group", Some(id.0.to_string()), details)).await?;
    Ok(())
}

/// Who depends on a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupImpact {
    /// Keys scoped to the group.
    pub keys: Vec<ClientKeyId>,
    /// Keys whose pool would be empty without this group (their other groups are disabled or
    /// empty): they would fail closed.
    pub keys_left_empty: Vec<ClientKeyId>,
}

pub async fn group_impact(
    groups: &dyn GroupDirectory,
    keys: &dyn ClientKeyDirectory,
    id: GroupId,
) -> Result<GroupImpact, AdminError> {
    let all_groups = groups.list_groups().await?;
    if !all_groups.iter().any(|g| g.id == id) {
        return Err(AdminError::NotFound(format!("group {id}")));
    }
    let mut impact = GroupImpact { keys: Vec::new(), keys_left_empty: Vec::new() };
    for key in keys.list_client_keys().await? {
        let KeyScope::Groups(scope) = &key.scope else { continue };
        if !scope.contains(&id) {
            continue;
        }
        impact.keys.push(key.id);
        let others_usable =
            all_groups.iter().any(|g| g.id != id && scope.contains(&g.id) && g.enabled && !g.account_ids.is_empty());
        if !others_usable {
            impact.keys_left_empty.push(key.id);
        }
    }
    Ok(impact)
}

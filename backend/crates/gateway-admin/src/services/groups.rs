//! Account groups: list and view (with the client keys scoped to each), create, edit, replace
//! members, delete, and the impact of disabling or deleting one.

use std::collections::HashMap;
use std::sync::Arc;

use gateway_core::domain::{AccountGroup, AccountId, ClientKeyId, GroupId, KeyScope};

use crate::audit::AuditActor;
use crate::error::AdminError;
use crate::groups::{self, GroupImpact, GroupPatch, GroupSpec};
use crate::ports::{ClientKeyDirectory, GroupDirectory};
use crate::services::Mutations;

/// Which client keys are scoped to which group.
pub type KeysByGroup = HashMap<GroupId, Vec<ClientKeyId>>;

pub struct GroupsService {
    uow: Mutations,
    groups: Arc<dyn GroupDirectory>,
    keys: Arc<dyn ClientKeyDirectory>,
}

impl GroupsService {
    pub fn new(uow: Mutations, groups: Arc<dyn GroupDirectory>, keys: Arc<dyn ClientKeyDirectory>) -> Self {
        Self { uow, groups, keys }
    }

    async fn keys_by_group(&self) -> Result<KeysByGroup, AdminError> {
        let mut map = KeysByGroup::new();
        for key in self.keys.list_client_keys().await? {
            if let KeyScope::Groups(groups) = key.scope {
                for group in groups {
                    map.entry(group).or_default().push(key.id);
                }
            }
        }
        Ok(map)
    }

    /// Every group, with the keys scoped to each.
    pub async fn list(&self) -> Result<(Vec<AccountGroup>, KeysByGroup), AdminError> {
        let keys = self.keys_by_group().await?;
        Ok((self.groups.list_groups().await?, keys))
    }

    /// One group, with the keys scoped to groups.
    pub async fn get(&self, id: GroupId) -> Result<(AccountGroup, KeysByGroup), AdminError> {
        let keys = self.keys_by_group().await?;
        Ok((self.groups.get_group(id).await?, keys))
    }

    /// Creates a group (audited); returns it as stored.
    pub async fn create(&self, actor: AuditActor, spec: GroupSpec) -> Result<(AccountGroup, KeysByGroup), AdminError> {
        let id = groups::create_group(self.uow.get(), actor, spec).await?;
        self.get(id).await
    }

    /// Edits a group (audited); returns it before and after the change.
    pub async fn update(
        &self,
        actor: AuditActor,
        id: GroupId,
        patch: GroupPatch,
    ) -> Result<(AccountGroup, (AccountGroup, KeysByGroup)), AdminError> {
        let before = groups::update_group(self.uow.get(), self.groups.as_ref(), actor, id, patch).await?;
        Ok((before, self.get(id).await?))
    }

    /// Replaces the members (audited); returns the members before and the group after.
    pub async fn replace_members(
        &self,
        actor: AuditActor,
        id: GroupId,
        members: Vec<AccountId>,
    ) -> Result<(Vec<AccountId>, (AccountGroup, KeysByGroup)), AdminError> {
        let before = groups::replace_members(self.uow.get(), self.groups.as_ref(), actor, id, members).await?;
        Ok((before, self.get(id).await?))
    }

    /// Deletes a group; refused while client keys are scoped to it.
    pub async fn delete(&self, actor: AuditActor, id: GroupId) -> Result<(), AdminError> {
        groups::delete_group(self.uow.get(), self.groups.as_ref(), self.keys.as_ref(), actor, id).await
    }

    pub async fn impact(&self, id: GroupId) -> Result<GroupImpact, AdminError> {
        groups::group_impact(self.groups.as_ref(), self.keys.as_ref(), id).await
    }
}

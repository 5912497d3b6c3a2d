//! Client keys: list and view (with their groups and budget use), create (the plaintext
//! once), edit, delete.

use std::collections::HashMap;
use std::sync::Arc;

use time::OffsetDateTime;

use gateway_core::domain::{AccountGroup, ClientKeyId, ClientKeyRecord, GroupId};

use crate::audit::AuditActor;
use crate::client_keys::{self, KeyPatch, KeySpec};
use crate::error::AdminError;
use crate::ports::{ClientKeyDirectory, GroupDirectory, UsageQueries};
use crate::services::Mutations;
use crate::usage::{UsageDimension, UsageFilter, UsageTotals};

/// What a key row shows beside the key: the groups, and use by key id since today's midnight
/// and the 1st of the month (in the requested zone).
pub struct KeyContext {
    pub groups: HashMap<GroupId, AccountGroup>,
    pub today: HashMap<String, UsageTotals>,
    pub month: HashMap<String, UsageTotals>,
}

pub struct KeysService {
    uow: Mutations,
    keys: Arc<dyn ClientKeyDirectory>,
    groups: Arc<dyn GroupDirectory>,
    usage: Arc<dyn UsageQueries>,
}

impl KeysService {
    pub fn new(
        uow: Mutations,
        keys: Arc<dyn ClientKeyDirectory>,
        groups: Arc<dyn GroupDirectory>,
        usage: Arc<dyn UsageQueries>,
    ) -> Self {
        Self { uow, keys, groups, usage }
    }

    async fn context(&self, tz: &str) -> Result<KeyContext, AdminError> {
        let groups = self.groups.list_groups().await?.into_iter().map(|g| (g.id, g)).collect();
        let starts = self.usage.calendar_starts(OffsetDateTime::now_utc(), tz).await?;
        let by_key = |from| async move {
            let filter = UsageFilter { from: Some(from), ..UsageFilter::default() };
            self.usage.usage_groups(&filter, UsageDimension::Key, 10_000).await.map(|groups| {
                groups.into_iter().filter_map(|g| g.key.map(|k| (k, g.totals))).collect::<HashMap<_, _>>()
            })
        };
        Ok(KeyContext { groups, today: by_key(starts.day).await?, month: by_key(starts.month).await? })
    }

    /// Keys with an id above `after` whose name or prefix contains `search` (any case), at most
    /// `take`, ascending id; with their context in zone `tz` (a known zone).
    pub async fn list(
        &self,
        after: i64,
        search: Option<&str>,
        take: usize,
        tz: &str,
    ) -> Result<(Vec<ClientKeyRecord>, KeyContext), AdminError> {
        let context = self.context(tz).await?;
        let search = search.map(str::to_lowercase);
        let rows = self
            .keys
            .list_client_keys()
            .await?
            .into_iter()
            .filter(|k| k.id.0 > after)
            .filter(|k| {
                search
                    .as_deref()
                    .is_none_or(|s| k.name.to_lowercase().contains(s) || k.key_prefix.to_lowercase().contains(s))
            })
            .take(take)
            .collect();
        Ok((rows, context))
    }

    /// One key with its context in UTC.
    pub async fn get(&self, id: ClientKeyId) -> Result<(ClientKeyRecord, KeyContext), AdminError> {
        let key = self.keys.get_client_key(id).await?;
        Ok((key, self.context("UTC").await?))
    }

    /// Creates a key (audited); returns it as stored, its context, and the plaintext (once).
    pub async fn create(
        &self,
        actor: AuditActor,
        spec: KeySpec,
    ) -> Result<(ClientKeyRecord, KeyContext, gateway_core::domain::ClientKeySecret), AdminError> {
        let created = client_keys::create_key(self.uow.get(), actor, spec).await?;
        let (key, context) = self.get(created.id).await?;
        Ok((key, context, created.secret))
    }

    /// Edits a key (audited); returns it before and after the change, with the context.
    pub async fn update(
        &self,
        actor: AuditActor,
        id: ClientKeyId,
        patch: KeyPatch,
    ) -> Result<(ClientKeyRecord, ClientKeyRecord, KeyContext), AdminError> {
        let before = client_keys::update_key(self.uow.get(), self.keys.as_ref(), actor, id, patch).await?;
        let (after, context) = self.get(id).await?;
        Ok((before, after, context))
    }

    pub async fn delete(&self, actor: AuditActor, id: ClientKeyId) -> Result<(), AdminError> {
        client_keys::delete_key(self.uow.get(), self.keys.as_ref(), actor, id).await
    }
}

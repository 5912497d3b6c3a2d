//! `/v1/models` and the Codex catalog: the union of the models the accounts in the key's scope
//! can serve.

use std::collections::BTreeMap;

use gateway_protocol::ApiError;
use time::OffsetDateTime;

use super::{Engine, auth};
use crate::catalog::{CatalogEntry, pick_entry, plan_key};
use crate::domain::ProviderKind;
use crate::provider::{ModelInfo, Provider, ProviderSet};
use crate::snapshot::{AccountEntry, KeyEntry, RuntimeSnapshot};

impl Engine {
    /// Checks the presented key without serving anything (WebSocket upgrades).
    pub fn authenticate(&self, api_key: Option<&str>) -> Result<(), ApiError> {
        auth::authenticate(&self.snapshots.current(), api_key, OffsetDateTime::now_utc()).map(|_| ())
    }

    /// Models visible to the presented key (aliases included), sorted by id.
    pub fn models(&self, api_key: Option<&str>) -> Result<Vec<ModelInfo>, ApiError> {
        let snapshot = self.snapshots.current();
        let key = auth::authenticate(&snapshot, api_key, OffsetDateTime::now_utc())?;
        let plans = plan_accounts(&self.providers, &snapshot, &key);
        Ok(visible_models(&plans, &snapshot, &key).into_values().collect())
    }

    /// The key's models for the Codex catalog, sorted by id: each with the upstream's own entry
    /// when a catalog of the key's accounts lists one ([`pick_entry`]: the newest installed
    /// catalog wins); aliases and models without an upstream entry (the fallback catalog, xAI)
    /// carry none.
    pub fn catalog_models(&self, api_key: Option<&str>) -> Result<Vec<CatalogModel>, ApiError> {
        let snapshot = self.snapshots.current();
        let key = auth::authenticate(&snapshot, api_key, OffsetDateTime::now_utc())?;
        let plans = plan_accounts(&self.providers, &snapshot, &key);
        Ok(visible_models(&plans, &snapshot, &key)
            .into_values()
            .map(|info| {
                let candidates = plans.iter().filter_map(|(provider, account)| {
                    Some((plan_key(account), provider.catalog_entry(account, &info.id)?))
                });
                CatalogModel { upstream_entry: pick_entry(candidates), info }
            })
            .collect())
    }

    /// The providers with at least one account the presented key may use.
    pub fn pool_providers(&self, api_key: Option<&str>) -> Result<Vec<ProviderKind>, ApiError> {
        let snapshot = self.snapshots.current();
        let key = auth::authenticate(&snapshot, api_key, OffsetDateTime::now_utc())?;
        Ok(self
            .providers
            .iter()
            .map(|p| p.kind())
            .filter(|kind| snapshot.scoped_accounts(&key.scope, *kind).next().is_some())
            .collect())
    }
}

/// One model of the key's Codex catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogModel {
    pub info: ModelInfo,
    /// The upstream's entry, served as sent; `None`: the neutral entry.
    pub upstream_entry: Option<CatalogEntry>,
}

/// One schedulable account per provider and plan in the key's scope: every account of a plan
/// shares the plan's catalog, so one is read per plan rather than every account.
fn plan_accounts<'a>(
    providers: &'a ProviderSet,
    snapshot: &'a RuntimeSnapshot,
    key: &'a KeyEntry,
) -> Vec<(&'a dyn Provider, &'a AccountEntry)> {
    let mut plans = Vec::new();
    for provider in providers.iter() {
        let mut seen_plans = Vec::new();
        for account in snapshot.scoped_accounts(&key.scope, provider.kind()) {
            if !account.is_schedulable() {
                continue;
            }
            let plan = account.record.profile.plan_type.clone();
            if seen_plans.contains(&plan) {
                continue;
            }
            seen_plans.push(plan);
            plans.push((provider.as_ref(), account.as_ref()));
        }
    }
    plans
}

/// The models of `plans`, plus the aliases whose target is among them, within the key's
/// allowed models.
fn visible_models(
    plans: &[(&dyn Provider, &AccountEntry)],
    snapshot: &RuntimeSnapshot,
    key: &KeyEntry,
) -> BTreeMap<String, ModelInfo> {
    let mut models: BTreeMap<String, ModelInfo> = BTreeMap::new();
    for (provider, account) in plans {
        for model in provider.models(account) {
            models.entry(model.id.clone()).or_insert(model);
        }
    }
    for (alias, target) in &snapshot.settings.model_aliases {
        if let Some(model) = models.get(target).cloned() {
            models.entry(alias.clone()).or_insert(ModelInfo { id: alias.clone(), owned_by: model.owned_by });
        }
    }
    if let Some(allowed) = &key.record.allowed_models {
        models.retain(|id, _| allowed.contains(id));
    }
    models
}

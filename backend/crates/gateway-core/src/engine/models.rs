//! `/v1/models`: the union of the models the accounts in the key's scope can serve.

use std::collections::BTreeMap;

use gateway_protocol::ApiError;
use time::OffsetDateTime;

use super::{Engine, auth};
use crate::domain::ProviderKind;
use crate::provider::ModelInfo;

impl Engine {
    /// Checks the presented key without serving anything (WebSocket upgrades).
    pub fn authenticate(&self, api_key: Option<&str>) -> Result<(), ApiError> {
        auth::authenticate(&self.snapshots.current(), api_key, OffsetDateTime::now_utc()).map(|_| ())
    }

    /// Models visible to the presented key (aliases included), sorted by id.
    pub fn models(&self, api_key: Option<&str>) -> Result<Vec<ModelInfo>, ApiError> {
        let snapshot = self.snapshots.current();
        let key = auth::authenticate(&snapshot, api_key, OffsetDateTime::now_utc())?;
        let mut models: BTreeMap<String, ModelInfo> = BTreeMap::new();
        for provider in self.providers.iter() {
            // Every scoped account of a provider shares the provider's catalog shape; read one
            // catalog per distinct plan rather than per account.
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
                for model in provider.models(account) {
                    models.entry(model.id.clone()).or_insert(model);
                }
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
        Ok(models.into_values().collect())
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

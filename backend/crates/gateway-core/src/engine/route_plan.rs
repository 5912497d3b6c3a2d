//! The route plan: the controlled model mapping and the ordered providers (each with its pool
//! of candidate accounts) that can serve the request within the key's scope.

use std::sync::Arc;

use gateway_protocol::{ApiError, ErrorCode};

use super::candidates::CandidatePool;
use super::pool_cache::PoolCache;
use crate::domain::ProviderKind;
use crate::provider::ProviderSet;
use crate::snapshot::{KeyEntry, RuntimeSnapshot};

pub struct RoutePlan {
    pub requested_model: String,
    /// The model sent upstream: the exact alias target, or the requested model.
    pub upstream_model: String,
    /// Providers in order of preference, each with a non-empty pool.
    pub steps: Vec<(ProviderKind, Arc<CandidatePool>)>,
}

impl RoutePlan {
    pub fn compile(
        snapshot: &RuntimeSnapshot,
        key: &KeyEntry,
        requested_model: &str,
        providers: &ProviderSet,
        pools: &PoolCache,
    ) -> Result<Self, ApiError> {
        if let Some(allowed) = &key.record.allowed_models
            && !allowed.iter().any(|m| m == requested_model)
        {
            return Err(ApiError::new(
                ErrorCode::ModelNotAllowed,
                format!("This API key is not allowed to use the model `{requested_model}`."),
            )
            .with_param("model"));
        }
        let upstream_model =
            snapshot.settings.model_aliases.get(requested_model).cloned().unwrap_or_else(|| requested_model.to_owned());
        let mut steps = Vec::new();
        for provider in providers.iter() {
            let pool = pools.pool(snapshot, &key.scope, provider.as_ref(), &upstream_model);
            if !pool.is_empty() {
                steps.push((provider.kind(), pool));
            }
        }
        if steps.is_empty() {
            let known = providers.iter().any(|provider| {
                snapshot
                    .scoped_accounts(&key.scope, provider.kind())
                    .any(|account| provider.supports_model(account, &upstream_model))
            });
            return Err(if known {
                ApiError::new(
                    ErrorCode::NoAvailableAccount,
                    format!("No account available for the model `{requested_model}` right now."),
                )
                .with_retry_after(30)
            } else {
                ApiError::new(
                    ErrorCode::ModelNotFound,
                    format!("The model `{requested_model}` does not exist or you do not have access to it."),
                )
                .with_param("model")
            });
        }
        Ok(Self { requested_model: requested_model.to_owned(), upstream_model, steps })
    }
}

//! Reading client keys with limits and scope ([`ClientKeyDirectory`] and the snapshot loader).

use async_trait::async_trait;
use sqlx::PgExecutor;

use gateway_admin::ports::ClientKeyDirectory;
use gateway_core::domain::{ClientKeyId, ClientKeyRecord};
use gateway_core::ports::StorageError;

use crate::postgres::PgStore;
use crate::postgres::error_mapping::storage_error;
use crate::rows::client_keys::client_key_from_row;

macro_rules! client_key_select {
    () => {
        "SELECT k.id, k.name, k.key_hash, k.key_prefix, k.enabled, k.expires_at, k.max_concurrency, \
         k.requests_per_minute, k.daily_token_budget, k.monthly_token_budget, k.daily_cost_budget_nano_usd, \
         k.monthly_cost_budget_nano_usd, k.allowed_models, k.service_tier_policy, k.created_at, k.updated_at, \
         COALESCE(array_agg(kg.group_id ORDER BY kg.group_id) FILTER (WHERE kg.group_id IS NOT NULL), '{}') \
         AS group_ids FROM client_api_keys k LEFT JOIN client_api_key_groups kg ON kg.client_key_id = k.id "
    };
}

pub(crate) async fn load_all_client_keys<'c>(
    executor: impl PgExecutor<'c>,
) -> Result<Vec<ClientKeyRecord>, StorageError> {
    let rows = sqlx::query(concat!(client_key_select!(), "GROUP BY k.id ORDER BY k.id"))
        .fetch_all(executor)
        .await
        .map_err(storage_error)?;
    rows.iter().map(client_key_from_row).collect()
}

#[async_trait]
impl ClientKeyDirectory for PgStore {
    async fn list_client_keys(&self) -> Result<Vec<ClientKeyRecord>, StorageError> {
        load_all_client_keys(self.pool()).await
    }

    async fn get_client_key(&self, id: ClientKeyId) -> Result<ClientKeyRecord, StorageError> {
        let row = sqlx::query(concat!(client_key_select!(), "WHERE k.id = $1 GROUP BY k.id"))
            .bind(id.0)
            .fetch_optional(self.pool())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("client key", id))?;
        client_key_from_row(&row)
    }
}

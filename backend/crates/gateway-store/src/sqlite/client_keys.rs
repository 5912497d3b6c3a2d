//! Reading client keys with limits and scope ([`ClientKeyDirectory`] and the snapshot loader).

use async_trait::async_trait;
use sqlx::SqliteExecutor;
use sqlx::sqlite::SqliteRow;

use gateway_admin::ports::ClientKeyDirectory;
use gateway_core::domain::{ClientKeyHash, ClientKeyId, ClientKeyLimits, ClientKeyRecord, GroupId, KeyScope, NanoUsd};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::{closed, digest, opt_u32_of, opt_u64_of};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::{SqliteColumns, opt_string_list, sorted_ids};

macro_rules! client_key_select {
    () => {
        "SELECT k.id, k.name, k.key_hash, k.key_prefix, k.enabled, k.expires_at, k.max_concurrency, \
         k.requests_per_minute, k.daily_token_budget, k.monthly_token_budget, k.daily_cost_budget_nano_usd, \
         k.monthly_cost_budget_nano_usd, k.allowed_models, k.service_tier_policy, k.created_at, k.updated_at, \
         (SELECT json_group_array(kg.group_id) FROM client_api_key_groups kg WHERE kg.client_key_id = k.id) \
         AS group_ids FROM client_api_keys k "
    };
}

pub(crate) async fn load_all_client_keys<'c>(
    executor: impl SqliteExecutor<'c>,
) -> Result<Vec<ClientKeyRecord>, StorageError> {
    let rows =
        sqlx::query(concat!(client_key_select!(), "ORDER BY k.id")).fetch_all(executor).await.map_err(storage_error)?;
    rows.iter().map(client_key_from_row).collect()
}

fn client_key_from_row(row: &SqliteRow) -> Result<ClientKeyRecord, StorageError> {
    Ok(ClientKeyRecord {
        id: ClientKeyId(row.col("id")?),
        name: row.col("name")?,
        key_hash: ClientKeyHash(digest(row.col("key_hash")?, "client_api_keys.key_hash")?),
        key_prefix: row.col("key_prefix")?,
        enabled: row.col("enabled")?,
        expires_at: row.opt_ts("expires_at")?,
        limits: ClientKeyLimits {
            max_concurrency: opt_u32_of(row.col("max_concurrency")?, "client_api_keys.max_concurrency")?,
            requests_per_minute: opt_u32_of(row.col("requests_per_minute")?, "client_api_keys.requests_per_minute")?,
            daily_token_budget: opt_u64_of(row.col("daily_token_budget")?, "client_api_keys.daily_token_budget")?,
            monthly_token_budget: opt_u64_of(row.col("monthly_token_budget")?, "client_api_keys.monthly_token_budget")?,
            daily_cost_budget: row.col::<Option<i64>>("daily_cost_budget_nano_usd")?.map(NanoUsd),
            monthly_cost_budget: row.col::<Option<i64>>("monthly_cost_budget_nano_usd")?.map(NanoUsd),
        },
        allowed_models: opt_string_list(row, "allowed_models")?,
        scope: KeyScope::from_group_ids(sorted_ids(row, "group_ids")?.into_iter().map(GroupId).collect()),
        service_tier_policy: closed(row.col::<&str>("service_tier_policy")?, "client_api_keys.service_tier_policy")?,
        created_at: row.ts("created_at")?,
        updated_at: row.ts("updated_at")?,
    })
}

#[async_trait]
impl ClientKeyDirectory for SqliteStore {
    async fn list_client_keys(&self) -> Result<Vec<ClientKeyRecord>, StorageError> {
        load_all_client_keys(self.reader()).await
    }

    async fn get_client_key(&self, id: ClientKeyId) -> Result<ClientKeyRecord, StorageError> {
        let row = sqlx::query(concat!(client_key_select!(), "WHERE k.id = $1"))
            .bind(id.0)
            .fetch_optional(self.reader())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("client key", id))?;
        client_key_from_row(&row)
    }
}

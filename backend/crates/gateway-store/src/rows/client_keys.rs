//! Mapping `client_api_keys` rows (with their `group_ids`), for both dialects.

use gateway_core::domain::{ClientKeyHash, ClientKeyId, ClientKeyLimits, ClientKeyRecord, GroupId, KeyScope, NanoUsd};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::{closed, digest, opt_u32_of, opt_u64_of};
use crate::row_columns::RowColumns;

pub(crate) fn client_key_from_row(row: &impl RowColumns) -> Result<ClientKeyRecord, StorageError> {
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
        allowed_models: row.opt_strings("allowed_models")?,
        scope: KeyScope::from_group_ids(row.ids("group_ids")?.into_iter().map(GroupId).collect()),
        service_tier_policy: closed(row.col::<&str>("service_tier_policy")?, "client_api_keys.service_tier_policy")?,
        created_at: row.ts("created_at")?,
        updated_at: row.ts("updated_at")?,
    })
}

//! Client key mutations of the admin unit of work.

use sqlx::SqliteConnection;

use gateway_admin::ports::{ClientKeyChanges, NewClientKey};
use gateway_core::domain::{ClientKeyId, GroupId, KeyScope};
use gateway_core::ports::StorageError;

use crate::postgres::row_presence::found;
use crate::row_columns::RowColumns;
use crate::sql_shared::client_key_values::{bind_limits, limit_columns, scope_before};
use crate::sqlite::account_mutations::{id_list, require_row};
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::{now_micros, opt_micros, opt_string_list_text};

pub(crate) async fn create_client_key(
    conn: &mut SqliteConnection,
    key: &NewClientKey,
) -> Result<ClientKeyId, StorageError> {
    let c = &key.changes;
    let limits = limit_columns(&c.limits)?;
    let row = bind_limits(
        sqlx::query(
            "INSERT INTO client_api_keys (name, key_hash, key_prefix, enabled, expires_at, max_concurrency, \
         requests_per_minute, daily_token_budget, monthly_token_budget, daily_cost_budget_nano_usd, \
         monthly_cost_budget_nano_usd, allowed_models, created_at, updated_at, service_tier_policy) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14) RETURNING id",
        )
        .bind(&c.name)
        .bind(key.key_hash.as_bytes().as_slice())
        .bind(&key.key_prefix)
        .bind(c.enabled)
        .bind(opt_micros(c.expires_at)),
        &limits,
    )
    .bind(opt_string_list_text(c.allowed_models.as_deref()))
    .bind(now_micros())
    .bind(c.service_tier_policy.as_str())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(ClientKeyId(row.col("id")?))
}

pub(crate) async fn update_client_key(
    conn: &mut SqliteConnection,
    key: ClientKeyId,
    c: &ClientKeyChanges,
) -> Result<(), StorageError> {
    let limits = limit_columns(&c.limits)?;
    let done = bind_limits(
        sqlx::query(
            "UPDATE client_api_keys SET name = $2, enabled = $3, expires_at = $4, max_concurrency = $5, \
         requests_per_minute = $6, daily_token_budget = $7, monthly_token_budget = $8, \
         daily_cost_budget_nano_usd = $9, monthly_cost_budget_nano_usd = $10, allowed_models = $11, \
         updated_at = $12, service_tier_policy = $13 WHERE id = $1",
        )
        .bind(key.0)
        .bind(&c.name)
        .bind(c.enabled)
        .bind(opt_micros(c.expires_at)),
        &limits,
    )
    .bind(opt_string_list_text(c.allowed_models.as_deref()))
    .bind(now_micros())
    .bind(c.service_tier_policy.as_str())
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    found(done.rows_affected(), "client key", key)
}

pub(crate) async fn replace_groups(
    conn: &mut SqliteConnection,
    key: ClientKeyId,
    groups: &[GroupId],
) -> Result<KeyScope, StorageError> {
    require_row(conn, "SELECT id FROM client_api_keys WHERE id = $1", key.0, "client key").await?;
    let before: Vec<i64> =
        sqlx::query_scalar("DELETE FROM client_api_key_groups WHERE client_key_id = $1 RETURNING group_id")
            .bind(key.0)
            .fetch_all(&mut *conn)
            .await
            .map_err(storage_error)?;
    sqlx::query(
        "INSERT INTO client_api_key_groups (client_key_id, group_id) SELECT DISTINCT $1, j.value FROM json_each($2) AS j",
    )
    .bind(key.0)
    .bind(id_list(groups.iter().map(|g| g.0)))
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    sqlx::query("UPDATE client_api_keys SET updated_at = $2 WHERE id = $1")
        .bind(key.0)
        .bind(now_micros())
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    Ok(scope_before(before))
}

pub(crate) async fn delete_client_key(conn: &mut SqliteConnection, key: ClientKeyId) -> Result<(), StorageError> {
    let done = sqlx::query("DELETE FROM client_api_keys WHERE id = $1")
        .bind(key.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    found(done.rows_affected(), "client key", key)
}

//! Client keys: reading them with their limits and scope ([`ClientKeyDirectory`] and the
//! snapshot loader) and the mutations of the admin unit of work.

use async_trait::async_trait;

use gateway_admin::ports::{ClientKeyChanges, ClientKeyDirectory, NewClientKey};
use gateway_core::domain::{ClientKeyId, ClientKeyLimits, ClientKeyRecord, GroupId, KeyScope};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::{opt_int4, opt_int8};
use crate::row_columns::RowColumns;
use crate::rows::client_keys::client_key_from_row;
use crate::sql::links::{found, insert_links, insert_links_sql, lock_row, lock_sql, select_with_ids};
use crate::sql::store::SqlStore;
use crate::sql::{Arg, Dialect, On, Sql, Statement};

macro_rules! select_keys {
    ($filter:literal, $order:literal) => {
        select_with_ids!(
            columns: "o.id, o.name, o.key_hash, o.key_prefix, o.enabled, o.expires_at, o.max_concurrency, \
                      o.requests_per_minute, o.daily_token_budget, o.monthly_token_budget, \
                      o.daily_cost_budget_nano_usd, o.monthly_cost_budget_nano_usd, o.allowed_models, \
                      o.service_tier_policy, o.created_at, o.updated_at",
            from: "client_api_keys o",
            links: "client_api_key_groups" on "client_key_id",
            member: "group_id" as "group_ids",
            where: $filter,
            order: $order,
        )
    };
}

const ALL_KEYS: Sql = select_keys!("", "ORDER BY o.id");
const ONE_KEY: Sql = select_keys!("WHERE o.id = $1", "");

const INSERT_KEY: Sql = Sql::same(
    "INSERT INTO client_api_keys (name, key_hash, key_prefix, enabled, expires_at, max_concurrency, \
     requests_per_minute, daily_token_budget, monthly_token_budget, daily_cost_budget_nano_usd, \
     monthly_cost_budget_nano_usd, allowed_models, service_tier_policy, created_at, updated_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) RETURNING id",
);
const UPDATE_KEY: Sql = Sql::same(
    "UPDATE client_api_keys SET name = $2, enabled = $3, expires_at = $4, max_concurrency = $5, \
     requests_per_minute = $6, daily_token_budget = $7, monthly_token_budget = $8, \
     daily_cost_budget_nano_usd = $9, monthly_cost_budget_nano_usd = $10, allowed_models = $11, \
     service_tier_policy = $12, updated_at = $13 WHERE id = $1",
);
const LOCK_KEY: Sql = lock_sql!("client_api_keys");
const DELETE_GROUPS: Sql = Sql::same("DELETE FROM client_api_key_groups WHERE client_key_id = $1 RETURNING group_id");
const INSERT_GROUPS: Sql = insert_links_sql!("client_api_key_groups", "client_key_id", "group_id");
const TOUCH_KEY: Sql = Sql::same("UPDATE client_api_keys SET updated_at = $2 WHERE id = $1");
const DELETE_KEY: Sql = Sql::same("DELETE FROM client_api_keys WHERE id = $1");

pub(crate) async fn load_all<'e, D: Dialect>(on: impl Into<On<'e, D>>) -> Result<Vec<ClientKeyRecord>, StorageError> {
    let rows = Statement::<D>::new(&ALL_KEYS).fetch_all(on).await?;
    rows.iter().map(client_key_from_row).collect()
}

#[async_trait]
impl<D: Dialect> ClientKeyDirectory for SqlStore<D> {
    async fn list_client_keys(&self) -> Result<Vec<ClientKeyRecord>, StorageError> {
        load_all::<D>(self.reader()).await
    }

    async fn get_client_key(&self, id: ClientKeyId) -> Result<ClientKeyRecord, StorageError> {
        let row = Statement::<D>::new(&ONE_KEY)
            .bind(id.0)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| StorageError::not_found("client key", id))?;
        client_key_from_row(&row)
    }
}

pub(crate) async fn create<D: Dialect>(
    conn: &mut D::Connection,
    key: &NewClientKey,
) -> Result<ClientKeyId, StorageError> {
    let c = &key.changes;
    let statement = Statement::<D>::new(&INSERT_KEY)
        .bind(&c.name)
        .bind(key.key_hash.as_bytes().as_slice())
        .bind(&key.key_prefix)
        .bind(c.enabled)
        .bind(c.expires_at);
    let row = bind_limits(statement, &c.limits)?
        .bind(Arg::texts(c.allowed_models.as_deref()))
        .bind(c.service_tier_policy.as_str())
        .bind(time::OffsetDateTime::now_utc())
        .fetch_one(conn)
        .await?;
    Ok(ClientKeyId(row.col("id")?))
}

pub(crate) async fn update<D: Dialect>(
    conn: &mut D::Connection,
    key: ClientKeyId,
    c: &ClientKeyChanges,
) -> Result<(), StorageError> {
    let statement = Statement::<D>::new(&UPDATE_KEY).bind(key.0).bind(&c.name).bind(c.enabled).bind(c.expires_at);
    let touched = bind_limits(statement, &c.limits)?
        .bind(Arg::texts(c.allowed_models.as_deref()))
        .bind(c.service_tier_policy.as_str())
        .bind(time::OffsetDateTime::now_utc())
        .execute(conn)
        .await?;
    found(touched, "client key", key)
}

/// Replaces the key's groups; the scope it had before.
pub(crate) async fn replace_groups<D: Dialect>(
    conn: &mut D::Connection,
    key: ClientKeyId,
    groups: &[GroupId],
) -> Result<KeyScope, StorageError> {
    lock_row::<D>(conn, &LOCK_KEY, key.0, "client key").await?;
    let deleted = Statement::<D>::new(&DELETE_GROUPS).bind(key.0).fetch_all(&mut *conn).await?;
    let mut before = deleted.iter().map(|row| row.col("group_id").map(GroupId)).collect::<Result<Vec<_>, _>>()?;
    before.sort();
    insert_links::<D>(conn, &INSERT_GROUPS, key.0, groups.iter().map(|g| g.0)).await?;
    Statement::<D>::new(&TOUCH_KEY).bind(key.0).bind(time::OffsetDateTime::now_utc()).execute(conn).await?;
    Ok(KeyScope::from_group_ids(before))
}

pub(crate) async fn delete<D: Dialect>(conn: &mut D::Connection, key: ClientKeyId) -> Result<(), StorageError> {
    let touched = Statement::<D>::new(&DELETE_KEY).bind(key.0).execute(conn).await?;
    found(touched, "client key", key)
}

/// Binds `max_concurrency, requests_per_minute, daily_token_budget, monthly_token_budget,
/// daily_cost_budget_nano_usd, monthly_cost_budget_nano_usd`, in that order.
fn bind_limits<D: Dialect>(statement: Statement<D>, l: &ClientKeyLimits) -> Result<Statement<D>, StorageError> {
    Ok(statement
        .bind(opt_int4(l.max_concurrency, "client_api_keys.max_concurrency")?)
        .bind(opt_int4(l.requests_per_minute, "client_api_keys.requests_per_minute")?)
        .bind(opt_int8(l.daily_token_budget, "client_api_keys.daily_token_budget")?)
        .bind(opt_int8(l.monthly_token_budget, "client_api_keys.monthly_token_budget")?)
        .bind(l.daily_cost_budget.map(|c| c.0))
        .bind(l.monthly_cost_budget.map(|c| c.0)))
}

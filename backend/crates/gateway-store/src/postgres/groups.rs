//! Reading account groups with their members ([`GroupDirectory`] and the snapshot loader).

use async_trait::async_trait;
use sqlx::PgExecutor;
use sqlx::postgres::PgRow;

use gateway_admin::ports::GroupDirectory;
use gateway_core::domain::{AccountGroup, AccountId, GroupId};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::PgStore;
use crate::postgres::column_values::ColumnRead;
use crate::postgres::error_mapping::storage_error;
use crate::rows::egress_proxy::{group_proxy_context, proxy_from_row};

macro_rules! group_select {
    () => {
        "SELECT g.id, g.name, g.description, g.enabled, g.created_at, g.updated_at, g.egress_proxy, \
         g.egress_proxy_ciphertext, g.egress_proxy_key_id, \
         COALESCE(array_agg(m.account_id ORDER BY m.account_id) FILTER (WHERE m.account_id IS NOT NULL), '{}') \
         AS account_ids FROM account_groups g LEFT JOIN account_group_accounts m ON m.group_id = g.id "
    };
}

pub(crate) async fn load_all_groups<'c>(
    executor: impl PgExecutor<'c>,
    keyring: &Keyring,
) -> Result<Vec<AccountGroup>, StorageError> {
    let rows = sqlx::query(concat!(group_select!(), "GROUP BY g.id ORDER BY g.id"))
        .fetch_all(executor)
        .await
        .map_err(storage_error)?;
    rows.iter().map(|row| group_from_row(row, keyring)).collect()
}

fn group_from_row(row: &PgRow, keyring: &Keyring) -> Result<AccountGroup, StorageError> {
    let account_ids: Vec<i64> = row.col("account_ids")?;
    let id: i64 = row.col("id")?;
    Ok(AccountGroup {
        id: GroupId(id),
        name: row.col("name")?,
        description: row.col("description")?,
        enabled: row.col("enabled")?,
        account_ids: account_ids.into_iter().map(AccountId).collect(),
        egress_proxy: proxy_from_row(row, keyring, &group_proxy_context(id))?,
        created_at: row.col("created_at")?,
        updated_at: row.col("updated_at")?,
    })
}

#[async_trait]
impl GroupDirectory for PgStore {
    async fn list_groups(&self) -> Result<Vec<AccountGroup>, StorageError> {
        load_all_groups(self.pool(), self.keyring()?).await
    }

    async fn get_group(&self, id: GroupId) -> Result<AccountGroup, StorageError> {
        let row = sqlx::query(concat!(group_select!(), "WHERE g.id = $1 GROUP BY g.id"))
            .bind(id.0)
            .fetch_optional(self.pool())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("group", id))?;
        group_from_row(&row, self.keyring()?)
    }
}

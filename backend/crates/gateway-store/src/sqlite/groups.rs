//! Reading account groups with their members ([`GroupDirectory`] and the snapshot loader).

use async_trait::async_trait;
use sqlx::SqliteExecutor;
use sqlx::sqlite::SqliteRow;

use gateway_admin::ports::GroupDirectory;
use gateway_core::domain::{AccountGroup, AccountId, GroupId};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::rows::egress_proxy::{group_proxy_context, proxy_from_row};
use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::{SqliteColumns, sorted_ids};

macro_rules! group_select {
    () => {
        "SELECT g.id, g.name, g.description, g.enabled, g.created_at, g.updated_at, g.egress_proxy, \
         g.egress_proxy_ciphertext, g.egress_proxy_key_id, \
         (SELECT json_group_array(m.account_id) FROM account_group_accounts m WHERE m.group_id = g.id) \
         AS account_ids FROM account_groups g "
    };
}

pub(crate) async fn load_all_groups<'c>(
    executor: impl SqliteExecutor<'c>,
    keyring: &Keyring,
) -> Result<Vec<AccountGroup>, StorageError> {
    let rows =
        sqlx::query(concat!(group_select!(), "ORDER BY g.id")).fetch_all(executor).await.map_err(storage_error)?;
    rows.iter().map(|row| group_from_row(row, keyring)).collect()
}

fn group_from_row(row: &SqliteRow, keyring: &Keyring) -> Result<AccountGroup, StorageError> {
    let id: i64 = row.col("id")?;
    Ok(AccountGroup {
        id: GroupId(id),
        name: row.col("name")?,
        description: row.col("description")?,
        enabled: row.col("enabled")?,
        account_ids: sorted_ids(row, "account_ids")?.into_iter().map(AccountId).collect(),
        egress_proxy: proxy_from_row(row, keyring, &group_proxy_context(id))?,
        created_at: row.ts("created_at")?,
        updated_at: row.ts("updated_at")?,
    })
}

#[async_trait]
impl GroupDirectory for SqliteStore {
    async fn list_groups(&self) -> Result<Vec<AccountGroup>, StorageError> {
        load_all_groups(self.reader(), self.keyring()?).await
    }

    async fn get_group(&self, id: GroupId) -> Result<AccountGroup, StorageError> {
        let row = sqlx::query(concat!(group_select!(), "WHERE g.id = $1"))
            .bind(id.0)
            .fetch_optional(self.reader())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("group", id))?;
        group_from_row(&row, self.keyring()?)
    }
}

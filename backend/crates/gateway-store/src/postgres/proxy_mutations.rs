//! Setting and clearing the egress proxy of an account or a group (decision 0241): the whole
//! URL sealed under the row's context, the URL without user info beside it.

use sqlx::PgConnection;

use gateway_core::domain::{AccountId, EgressProxy, GroupId};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::column_values::ColumnRead;
use crate::postgres::error_mapping::storage_error;
use crate::postgres::row_presence::found;
use crate::rows::egress_proxy::{account_proxy_context, group_proxy_context, proxy_columns};

pub(crate) async fn set_account_proxy(
    conn: &mut PgConnection,
    keyring: &Keyring,
    account: AccountId,
    proxy: Option<&EgressProxy>,
) -> Result<(), StorageError> {
    let row = sqlx::query("SELECT provider, external_account_id FROM provider_accounts WHERE id = $1 FOR UPDATE")
        .bind(account.0)
        .fetch_optional(&mut *conn)
        .await
        .map_err(storage_error)?
        .ok_or_else(|| StorageError::not_found("account", account))?;
    let context = account_proxy_context(row.col::<&str>("provider")?, row.col::<&str>("external_account_id")?);
    let columns = proxy_columns(keyring, proxy, &context)?;
    let done = sqlx::query(
        "UPDATE provider_accounts SET egress_proxy = $2, egress_proxy_ciphertext = $3, egress_proxy_key_id = $4, \
         updated_at = now() WHERE id = $1",
    )
    .bind(account.0)
    .bind(columns.display)
    .bind(columns.ciphertext)
    .bind(columns.key_id)
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    found(done.rows_affected(), "account", account)
}

pub(crate) async fn set_group_proxy(
    conn: &mut PgConnection,
    keyring: &Keyring,
    group: GroupId,
    proxy: Option<&EgressProxy>,
) -> Result<(), StorageError> {
    let columns = proxy_columns(keyring, proxy, &group_proxy_context(group.0))?;
    let done = sqlx::query(
        "UPDATE account_groups SET egress_proxy = $2, egress_proxy_ciphertext = $3, egress_proxy_key_id = $4, \
         updated_at = now() WHERE id = $1",
    )
    .bind(group.0)
    .bind(columns.display)
    .bind(columns.ciphertext)
    .bind(columns.key_id)
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    found(done.rows_affected(), "group", group)
}

//! Setting and clearing the egress proxy of an account or a group (decision 0241): the whole
//! URL sealed under the row's context, the URL without user info beside it.

use gateway_core::domain::{AccountId, EgressProxy, GroupId};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::row_columns::RowColumns;
use crate::rows::egress_proxy::{ProxyColumns, account_proxy_context, group_proxy_context, proxy_columns};
use crate::sql::links::found;
use crate::sql::{Dialect, Sql, Statement};

const ACCOUNT_CONTEXT: Sql = Sql::each(
    "SELECT provider, external_account_id FROM provider_accounts WHERE id = $1 FOR UPDATE",
    "SELECT provider, external_account_id FROM provider_accounts WHERE id = $1",
);
const SET_ACCOUNT_PROXY: Sql = Sql::same(
    "UPDATE provider_accounts SET egress_proxy = $2, egress_proxy_ciphertext = $3, egress_proxy_key_id = $4, \
     updated_at = $5 WHERE id = $1",
);
const SET_GROUP_PROXY: Sql = Sql::same(
    "UPDATE account_groups SET egress_proxy = $2, egress_proxy_ciphertext = $3, egress_proxy_key_id = $4, \
     updated_at = $5 WHERE id = $1",
);

pub(crate) async fn set_account_proxy<D: Dialect>(
    conn: &mut D::Connection,
    keyring: &Keyring,
    account: AccountId,
    proxy: Option<&EgressProxy>,
) -> Result<(), StorageError> {
    let row = Statement::<D>::new(&ACCOUNT_CONTEXT)
        .bind(account.0)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or_else(|| StorageError::not_found("account", account))?;
    let context = account_proxy_context(row.col::<&str>("provider")?, row.col::<&str>("external_account_id")?);
    let columns = proxy_columns(keyring, proxy, &context)?;
    let touched = write_columns::<D>(conn, &SET_ACCOUNT_PROXY, account.0, columns).await?;
    found(touched, "account", account)
}

pub(crate) async fn set_group_proxy<D: Dialect>(
    conn: &mut D::Connection,
    keyring: &Keyring,
    group: GroupId,
    proxy: Option<&EgressProxy>,
) -> Result<(), StorageError> {
    let columns = proxy_columns(keyring, proxy, &group_proxy_context(group.0))?;
    let touched = write_columns::<D>(conn, &SET_GROUP_PROXY, group.0, columns).await?;
    found(touched, "group", group)
}

async fn write_columns<D: Dialect>(
    conn: &mut D::Connection,
    sql: &Sql,
    id: i64,
    columns: ProxyColumns,
) -> Result<u64, StorageError> {
    Statement::<D>::new(sql)
        .bind(id)
        .bind(columns.display)
        .bind(columns.ciphertext)
        .bind(columns.key_id)
        .bind(time::OffsetDateTime::now_utc())
        .execute(conn)
        .await
}

//! Account groups: reading them with their members ([`GroupDirectory`] and the snapshot loader)
//! and the mutations of the admin unit of work.

use async_trait::async_trait;

use gateway_admin::ports::{GroupChanges, GroupDirectory};
use gateway_core::domain::{AccountGroup, AccountId, GroupId};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::row_columns::RowColumns;
use crate::rows::egress_proxy::{group_proxy_context, proxy_from_row};
use crate::sql::links::{found, insert_links, insert_links_sql, lock_row, lock_sql, select_with_ids};
use crate::sql::store::SqlStore;
use crate::sql::{Dialect, On, Sql, Statement};

macro_rules! select_groups {
    ($filter:literal, $order:literal) => {
        select_with_ids!(
            columns: "o.id, o.name, o.description, o.enabled, o.created_at, o.updated_at, o.egress_proxy, \
                      o.egress_proxy_ciphertext, o.egress_proxy_key_id",
            from: "account_groups o",
            links: "account_group_accounts" on "group_id",
            member: "account_id" as "account_ids",
            where: $filter,
            order: $order,
        )
    };
}

const ALL_GROUPS: Sql = select_groups!("", "ORDER BY o.id");
const ONE_GROUP: Sql = select_groups!("WHERE o.id = $1", "");
const INSERT_GROUP: Sql = Sql::same(
    "INSERT INTO account_groups (name, description, enabled, created_at, updated_at) \
     VALUES ($1, $2, $3, $4, $4) RETURNING id",
);
const UPDATE_GROUP: Sql =
    Sql::same("UPDATE account_groups SET name = $2, description = $3, enabled = $4, updated_at = $5 WHERE id = $1");
const LOCK_GROUP: Sql = lock_sql!("account_groups");
const DELETE_MEMBERS: Sql = Sql::same("DELETE FROM account_group_accounts WHERE group_id = $1");
const INSERT_MEMBERS: Sql = insert_links_sql!("account_group_accounts", "group_id", "account_id");
const TOUCH_GROUP: Sql = Sql::same("UPDATE account_groups SET updated_at = $2 WHERE id = $1");
const DELETE_GROUP: Sql = Sql::same("DELETE FROM account_groups WHERE id = $1");

pub(crate) async fn load_all<'e, D: Dialect>(
    on: impl Into<On<'e, D>>,
    keyring: &Keyring,
) -> Result<Vec<AccountGroup>, StorageError> {
    let rows = Statement::<D>::new(&ALL_GROUPS).fetch_all(on).await?;
    rows.iter().map(|row| group_from_row(row, keyring)).collect()
}

fn group_from_row(row: &impl RowColumns, keyring: &Keyring) -> Result<AccountGroup, StorageError> {
    let id: i64 = row.col("id")?;
    Ok(AccountGroup {
        id: GroupId(id),
        name: row.col("name")?,
        description: row.col("description")?,
        enabled: row.col("enabled")?,
        account_ids: row.ids("account_ids")?.into_iter().map(AccountId).collect(),
        egress_proxy: proxy_from_row(row, keyring, &group_proxy_context(id))?,
        created_at: row.ts("created_at")?,
        updated_at: row.ts("updated_at")?,
    })
}

#[async_trait]
impl<D: Dialect> GroupDirectory for SqlStore<D> {
    async fn list_groups(&self) -> Result<Vec<AccountGroup>, StorageError> {
        load_all::<D>(self.reader(), self.keyring()?).await
    }

    async fn get_group(&self, id: GroupId) -> Result<AccountGroup, StorageError> {
        let row = Statement::<D>::new(&ONE_GROUP)
            .bind(id.0)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| StorageError::not_found("group", id))?;
        group_from_row(&row, self.keyring()?)
    }
}

pub(crate) async fn create<D: Dialect>(
    conn: &mut D::Connection,
    group: &GroupChanges,
) -> Result<GroupId, StorageError> {
    let row = Statement::<D>::new(&INSERT_GROUP)
        .bind(&group.name)
        .bind(&group.description)
        .bind(group.enabled)
        .bind(time::OffsetDateTime::now_utc())
        .fetch_one(conn)
        .await?;
    Ok(GroupId(row.col("id")?))
}

pub(crate) async fn update<D: Dialect>(
    conn: &mut D::Connection,
    group: GroupId,
    changes: &GroupChanges,
) -> Result<(), StorageError> {
    let touched = Statement::<D>::new(&UPDATE_GROUP)
        .bind(group.0)
        .bind(&changes.name)
        .bind(&changes.description)
        .bind(changes.enabled)
        .bind(time::OffsetDateTime::now_utc())
        .execute(conn)
        .await?;
    found(touched, "group", group)
}

pub(crate) async fn replace_members<D: Dialect>(
    conn: &mut D::Connection,
    group: GroupId,
    accounts: &[AccountId],
) -> Result<(), StorageError> {
    lock_row::<D>(conn, &LOCK_GROUP, group.0, "group").await?;
    Statement::<D>::new(&DELETE_MEMBERS).bind(group.0).execute(&mut *conn).await?;
    insert_links::<D>(conn, &INSERT_MEMBERS, group.0, accounts.iter().map(|a| a.0)).await?;
    Statement::<D>::new(&TOUCH_GROUP).bind(group.0).bind(time::OffsetDateTime::now_utc()).execute(conn).await?;
    Ok(())
}

pub(crate) async fn delete<D: Dialect>(conn: &mut D::Connection, group: GroupId) -> Result<(), StorageError> {
    let touched = Statement::<D>::new(&DELETE_GROUP).bind(group.0).execute(conn).await?;
    found(touched, "group", group)
}

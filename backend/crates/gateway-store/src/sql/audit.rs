//! The audit trail: appending the hash-chained row inside a unit of work, listing, verifying,
//! and the filtered, keyset-paged search ([`AuditSearch`]).
//!
//! Appends are serialised: in PostgreSQL by the `runtime_settings` row lock that the same
//! transaction took when it bumped `config_revision`, in SQLite by the single writer connection,
//! so reading the previous hash and inserting cannot interleave.

use std::ops::ControlFlow;

use async_trait::async_trait;

use gateway_admin::audit::{AuditEntry, AuditEvent};
use gateway_admin::ports::{AuditFilter, AuditSearch, AuditTrail};
use gateway_core::domain::ConfigRevision;
use gateway_core::ports::StorageError;

use crate::postgres::column_values::int8;
use crate::row_columns::RowColumns;
use crate::rows::audit::{audit_select, event_from_row};
use crate::sql::store::SqlStore;
use crate::sql::{Arg, Dialect, Sql, Statement};
use crate::sql_shared::audit_chain::{ChainCheck, VERIFY_PAGE, chain_append};

const LAST_HASH: Sql = Sql::same("SELECT row_hash FROM admin_audit_events ORDER BY id DESC LIMIT 1");
const INSERT_EVENT: Sql = Sql::same(
    "INSERT INTO admin_audit_events (occurred_at, actor_user_id, actor_name, action, target_kind, target_id, \
     details, config_revision, prev_hash, row_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
);
const PAGE_BEFORE: Sql = Sql::each(
    concat!(audit_select!(), "WHERE ($1::bigint IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"),
    concat!(audit_select!(), "WHERE ($1 IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"),
);
const SEARCH: Sql = Sql::each(
    concat!(
        audit_select!(),
        "WHERE ($1::timestamptz IS NULL OR occurred_at >= $1) AND ($2::timestamptz IS NULL OR occurred_at < $2) \
         AND ($3::text IS NULL OR lower(actor_name) = lower($3)) AND ($4::text IS NULL OR starts_with(action, $4)) \
         AND ($5::text IS NULL OR target_kind = $5) AND ($6::text IS NULL OR target_id = $6) \
         AND ($7::bigint IS NULL OR id < $7) ORDER BY id DESC LIMIT $8"
    ),
    concat!(
        audit_select!(),
        "WHERE ($1 IS NULL OR occurred_at >= $1) AND ($2 IS NULL OR occurred_at < $2) \
         AND ($3 IS NULL OR lower(actor_name) = lower($3)) \
         AND ($4 IS NULL OR substr(action, 1, length($4)) = $4) \
         AND ($5 IS NULL OR target_kind = $5) AND ($6 IS NULL OR target_id = $6) \
         AND ($7 IS NULL OR id < $7) ORDER BY id DESC LIMIT $8"
    ),
);
const ONE_EVENT: Sql = Sql::same(concat!(audit_select!(), "WHERE id = $1"));
const PAGE_AFTER: Sql = Sql::same(concat!(audit_select!(), "WHERE id > $1 ORDER BY id LIMIT $2"));

/// Inserts the audit row for a unit of work whose revision bump produced `config_revision`.
pub(crate) async fn append<D: Dialect>(
    conn: &mut D::Connection,
    entry: &AuditEntry,
    config_revision: ConfigRevision,
) -> Result<i64, StorageError> {
    let prev = Statement::<D>::new(&LAST_HASH).fetch_optional(&mut *conn).await?;
    let prev: Option<Vec<u8>> = prev.map(|row| row.col("row_hash")).transpose()?;
    let link = chain_append(prev, entry, config_revision)?;
    let row = Statement::<D>::new(&INSERT_EVENT)
        .bind(link.occurred_at)
        .bind(entry.actor.user_id.map(|u| u.0))
        .bind(&entry.actor.name)
        .bind(&entry.action)
        .bind(&entry.target_kind)
        .bind(entry.target_id.as_deref())
        .bind(Arg::json(Some(entry.details.clone())))
        .bind(config_revision.0)
        .bind(link.prev_hash.as_ref().map(|h| h.as_slice()))
        .bind(link.row_hash.as_slice())
        .fetch_one(conn)
        .await?;
    row.col("id")
}

#[async_trait]
impl<D: Dialect> AuditTrail for SqlStore<D> {
    async fn list_audit_events(&self, before_id: Option<i64>, limit: u32) -> Result<Vec<AuditEvent>, StorageError> {
        let rows = Statement::<D>::new(&PAGE_BEFORE)
            .bind(before_id)
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn verify_audit_chain(&self) -> Result<Option<i64>, StorageError> {
        let mut check = ChainCheck::default();
        loop {
            let rows =
                Statement::<D>::new(&PAGE_AFTER).bind(check.after).bind(VERIFY_PAGE).fetch_all(self.reader()).await?;
            if let ControlFlow::Break(verdict) = check.page(&rows)? {
                return Ok(verdict);
            }
        }
    }
}

#[async_trait]
impl<D: Dialect> AuditSearch for SqlStore<D> {
    async fn search_audit(
        &self,
        filter: &AuditFilter,
        before_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<AuditEvent>, StorageError> {
        let rows = Statement::<D>::new(&SEARCH)
            .bind(filter.from)
            .bind(filter.to)
            .bind(filter.actor.as_deref())
            .bind(filter.action.as_deref())
            .bind(filter.target_kind.as_deref())
            .bind(filter.target_id.as_deref())
            .bind(before_id)
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn get_audit_event(&self, id: i64) -> Result<AuditEvent, StorageError> {
        let row = Statement::<D>::new(&ONE_EVENT)
            .bind(id)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| StorageError::not_found("audit event", id))?;
        event_from_row(&row)
    }
}

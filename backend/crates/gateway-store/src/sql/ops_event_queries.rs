//! [`OpsEventQueries`]: filtered, keyset-paged reading of `ops_events` (writing them is each
//! database's own: a `jsonb_to_recordset` batch in PostgreSQL, a transaction of inserts in
//! SQLite — `postgres::ops_events`, `sqlite::ops_events`).

use async_trait::async_trait;

use gateway_admin::ports::{OpsEventFilter, OpsEventQueries, StoredOpsEvent};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::int8;
use crate::row_columns::RowColumns;
use crate::rows::ops_events::{event_from_row, levels_at_least, ops_select};
use crate::sql::store::SqlStore;
use crate::sql::{Arg, Dialect, Sql, Statement};

const SEARCH: Sql = Sql::each(
    concat!(
        ops_select!(),
        "WHERE ($1::timestamptz IS NULL OR occurred_at >= $1) AND ($2::timestamptz IS NULL OR occurred_at < $2) \
         AND ($3::text[] IS NULL OR level = ANY($3)) \
         AND ($4::text IS NULL OR starts_with(kind, $4)) AND ($5::bigint IS NULL OR account_id = $5) \
         AND ($6::uuid IS NULL OR request_id = $6) AND ($7::bigint IS NULL OR id < $7) \
         ORDER BY id DESC LIMIT $8"
    ),
    concat!(
        ops_select!(),
        "WHERE ($1 IS NULL OR occurred_at >= $1) AND ($2 IS NULL OR occurred_at < $2) \
         AND ($3 IS NULL OR level IN (SELECT value FROM json_each($3))) \
         AND ($4 IS NULL OR substr(kind, 1, length($4)) = $4) AND ($5 IS NULL OR account_id = $5) \
         AND ($6 IS NULL OR request_id = $6) AND ($7 IS NULL OR id < $7) \
         ORDER BY id DESC LIMIT $8"
    ),
);
const AFTER: Sql = Sql::same(concat!(ops_select!(), "WHERE id > $1 ORDER BY id LIMIT $2"));
const LATEST: Sql = Sql::same("SELECT max(id) AS latest FROM ops_events");

#[async_trait]
impl<D: Dialect> OpsEventQueries for SqlStore<D> {
    async fn list_ops_events(
        &self,
        filter: &OpsEventFilter,
        before_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<StoredOpsEvent>, StorageError> {
        let levels = levels_at_least(filter.level).map(|levels| levels.into_iter().map(str::to_owned).collect());
        let rows = Statement::<D>::new(&SEARCH)
            .bind(filter.from)
            .bind(filter.to)
            .bind(Arg::Texts(levels))
            .bind(filter.kind.as_deref())
            .bind(filter.account.map(|a| a.0))
            .bind(filter.request.map(|r| r.0))
            .bind(before_id)
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn ops_events_after(&self, after_id: i64, limit: u32) -> Result<Vec<StoredOpsEvent>, StorageError> {
        let rows = Statement::<D>::new(&AFTER)
            .bind(after_id)
            .bind(int8(u64::from(limit), "limit")?)
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn latest_ops_event_id(&self) -> Result<i64, StorageError> {
        let row = Statement::<D>::new(&LATEST).fetch_one(self.reader()).await?;
        Ok(row.col::<Option<i64>>("latest")?.unwrap_or(0))
    }
}

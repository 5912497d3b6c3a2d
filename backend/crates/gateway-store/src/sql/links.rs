//! Steps several aggregates share: saying a mutation found its row, locking the row a mutation
//! works on, and replacing the rows that link it to a list of ids (`unnest` in PostgreSQL,
//! `json_each` in SQLite).

use gateway_core::ports::StorageError;

use crate::sql::{Arg, Dialect, Sql, Statement};

/// `NotFound` unless exactly one row was touched.
pub(crate) fn found(rows: u64, entity: &'static str, id: impl std::fmt::Display) -> Result<(), StorageError> {
    if rows == 1 { Ok(()) } else { Err(StorageError::not_found(entity, id)) }
}

/// Locks the addressed row for the rest of the transaction (`FOR UPDATE`; SQLite's single writer
/// connection already serialises every write); `NotFound` if it does not exist. `table` and its
/// `id` column are the caller's constants.
pub(crate) async fn lock_row<D: Dialect>(
    conn: &mut D::Connection,
    sql: &Sql,
    id: i64,
    entity: &'static str,
) -> Result<(), StorageError> {
    let row = Statement::<D>::new(sql).bind(id).fetch_optional(conn).await?;
    row.map(|_| ()).ok_or_else(|| StorageError::not_found(entity, id))
}

/// `SELECT id FROM <table> WHERE id = $1`, locked where the database locks rows.
macro_rules! lock_sql {
    ($table:literal) => {
        $crate::sql::Sql::each(
            concat!("SELECT id FROM ", $table, " WHERE id = $1 FOR UPDATE"),
            concat!("SELECT id FROM ", $table, " WHERE id = $1"),
        )
    };
}
pub(crate) use lock_sql;

/// `INSERT INTO <table> (<owner>, <member>)` one row per distinct id of `$2`, owned by `$1`.
macro_rules! insert_links_sql {
    ($table:literal, $owner:literal, $member:literal) => {
        $crate::sql::Sql::each(
            concat!(
                "INSERT INTO ",
                $table,
                " (",
                $owner,
                ", ",
                $member,
                ") ",
                "SELECT DISTINCT $1::bigint, m FROM unnest($2::bigint[]) AS m"
            ),
            concat!(
                "INSERT INTO ",
                $table,
                " (",
                $owner,
                ", ",
                $member,
                ") ",
                "SELECT DISTINCT $1, j.value FROM json_each($2) AS j"
            ),
        )
    };
}
pub(crate) use insert_links_sql;

/// Inserts the links of `owner` to `members` with an [`insert_links_sql!`] statement.
pub(crate) async fn insert_links<D: Dialect>(
    conn: &mut D::Connection,
    sql: &Sql,
    owner: i64,
    members: impl IntoIterator<Item = i64>,
) -> Result<(), StorageError> {
    Statement::<D>::new(sql).bind(owner).bind(Arg::ids(members)).execute(conn).await?;
    Ok(())
}

/// `(<aggregate of member ids>) AS <alias>` selected per owner row: an ordered `array_agg` over
/// a `LEFT JOIN` in PostgreSQL (the caller groups by the owner), a `json_group_array` subquery
/// in SQLite. Read with `RowColumns::ids`.
macro_rules! select_with_ids {
    (
        columns: $columns:literal,
        from: $from:literal,
        links: $links:literal on $owner:literal,
        member: $member:literal as $alias:literal,
        where: $filter:literal,
        order: $order:literal $(,)?
    ) => {
        $crate::sql::Sql::each(
            concat!(
                "SELECT ",
                $columns,
                ", COALESCE(array_agg(l.",
                $member,
                " ORDER BY l.",
                $member,
                ") ",
                "FILTER (WHERE l.",
                $member,
                " IS NOT NULL), '{}') AS ",
                $alias,
                " FROM ",
                $from,
                " LEFT JOIN ",
                $links,
                " l ON l.",
                $owner,
                " = o.id ",
                $filter,
                " GROUP BY o.id ",
                $order
            ),
            concat!(
                "SELECT ",
                $columns,
                ", (SELECT json_group_array(l.",
                $member,
                ") FROM ",
                $links,
                " l WHERE l.",
                $owner,
                " = o.id) AS ",
                $alias,
                " FROM ",
                $from,
                " ",
                $filter,
                " ",
                $order
            ),
        )
    };
}
pub(crate) use select_with_ids;

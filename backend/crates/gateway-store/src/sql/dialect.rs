//! [`Dialect`]: what the SQL adapter needs to know of a database — which text of a [`Sql`] it
//! reads, how an [`Arg`] is stored, how its errors map to [`StorageError`] — and the only place
//! that runs sqlx queries generically. Implemented by `sqlx::Postgres` and `sqlx::Sqlite`.

mod postgres;
mod sqlite;

/// The three calls that run a query, the same for every driver (its `storage_error` in scope).
macro_rules! driver_calls {
    () => {
        fn fetch_all<'e>(
            on: super::On<'e, Self>,
            query: DialectQuery<Self>,
        ) -> impl std::future::Future<Output = Result<Vec<Self::Row>, StorageError>> + Send + 'e {
            async move {
                match on {
                    super::On::Pool(pool) => query.fetch_all(pool).await,
                    super::On::Conn(conn) => query.fetch_all(conn).await,
                }
                .map_err(storage_error)
            }
        }

        fn fetch_optional<'e>(
            on: super::On<'e, Self>,
            query: DialectQuery<Self>,
        ) -> impl std::future::Future<Output = Result<Option<Self::Row>, StorageError>> + Send + 'e {
            async move {
                match on {
                    super::On::Pool(pool) => query.fetch_optional(pool).await,
                    super::On::Conn(conn) => query.fetch_optional(conn).await,
                }
                .map_err(storage_error)
            }
        }

        fn execute<'e>(
            on: super::On<'e, Self>,
            query: DialectQuery<Self>,
        ) -> impl std::future::Future<Output = Result<u64, StorageError>> + Send + 'e {
            async move {
                match on {
                    super::On::Pool(pool) => query.execute(pool).await,
                    super::On::Conn(conn) => query.execute(conn).await,
                }
                .map(|done| done.rows_affected())
                .map_err(storage_error)
            }
        }
    };
}
use driver_calls;

use std::future::Future;

use sqlx::query::Query;
use sqlx::{Database, Pool};

use gateway_core::ports::StorageError;

use super::{Arg, Sql};
use crate::row_columns::RowColumns;

/// A query's arguments as the dialect's driver holds them.
pub(crate) type DialectQuery<D> = Query<'static, D, <D as Database>::Arguments>;

/// Where a statement runs: a pool (one connection for the statement) or a connection already
/// held, e.g. a transaction's.
pub(crate) enum On<'e, D: Database> {
    Pool(&'e Pool<D>),
    Conn(&'e mut D::Connection),
}

impl<'e, D: Database> From<&'e Pool<D>> for On<'e, D> {
    fn from(pool: &'e Pool<D>) -> Self {
        Self::Pool(pool)
    }
}

impl<'e, D: Database> From<&'e mut D::Connection> for On<'e, D> {
    fn from(conn: &'e mut D::Connection) -> Self {
        Self::Conn(conn)
    }
}

/// A database the SQL adapter runs on.
pub(crate) trait Dialect: Database<Row: RowColumns> {
    /// This dialect's text of a statement.
    fn text(sql: &Sql) -> &'static str;

    /// This driver's errors as the ports' errors.
    fn storage_error(err: sqlx::Error) -> StorageError;

    /// Binds one value the way this database stores it.
    fn bind(query: DialectQuery<Self>, arg: Arg<'_>) -> DialectQuery<Self>;

    fn fetch_all<'e>(
        on: On<'e, Self>,
        query: DialectQuery<Self>,
    ) -> impl Future<Output = Result<Vec<Self::Row>, StorageError>> + Send + 'e;

    fn fetch_optional<'e>(
        on: On<'e, Self>,
        query: DialectQuery<Self>,
    ) -> impl Future<Output = Result<Option<Self::Row>, StorageError>> + Send + 'e;

    fn execute<'e>(
        on: On<'e, Self>,
        query: DialectQuery<Self>,
    ) -> impl Future<Output = Result<u64, StorageError>> + Send + 'e;
}

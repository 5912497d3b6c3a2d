//! [`Sql`] (a statement's text in both dialects) and [`Statement`] (one statement being bound and
//! run on a pool or a connection).

use sqlx::Database;
use sqlx::query::Query;

use gateway_core::ports::StorageError;

use super::{Arg, Dialect, On};

/// A statement's text: the same in both dialects, or one text each.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sql {
    pub(crate) postgres: &'static str,
    pub(crate) sqlite: &'static str,
}

impl Sql {
    /// A statement both databases read alike.
    pub(crate) const fn same(text: &'static str) -> Self {
        Self { postgres: text, sqlite: text }
    }

    /// A statement whose text differs.
    pub(crate) const fn each(postgres: &'static str, sqlite: &'static str) -> Self {
        Self { postgres, sqlite }
    }
}

/// One statement for dialect `D`: built from its [`Sql`], bound value by value, run once.
pub(crate) struct Statement<D: Dialect> {
    query: Query<'static, D, <D as Database>::Arguments>,
}

impl<D: Dialect> Statement<D> {
    pub(crate) fn new(sql: &Sql) -> Self {
        Self { query: sqlx::query(D::text(sql)) }
    }

    pub(crate) fn bind<'a>(self, value: impl Into<Arg<'a>>) -> Self {
        Self { query: D::bind(self.query, value.into()) }
    }

    pub(crate) async fn fetch_all<'e>(self, on: impl Into<On<'e, D>>) -> Result<Vec<D::Row>, StorageError> {
        D::fetch_all(on.into(), self.query).await
    }

    pub(crate) async fn fetch_optional<'e>(self, on: impl Into<On<'e, D>>) -> Result<Option<D::Row>, StorageError> {
        D::fetch_optional(on.into(), self.query).await
    }

    /// The one row the statement returns (`Internal` when there is none).
    pub(crate) async fn fetch_one<'e>(self, on: impl Into<On<'e, D>>) -> Result<D::Row, StorageError> {
        D::fetch_optional(on.into(), self.query)
            .await?
            .ok_or_else(|| StorageError::Internal("expected a row, found none".to_owned()))
    }

    /// Runs the statement; the number of rows it touched.
    pub(crate) async fn execute<'e>(self, on: impl Into<On<'e, D>>) -> Result<u64, StorageError> {
        D::execute(on.into(), self.query).await
    }
}

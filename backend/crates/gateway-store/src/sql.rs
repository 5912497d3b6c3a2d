//! The SQL adapter, one module per aggregate, for both databases (decision 0344). Each port
//! method is written once, generic over a [`Dialect`]: where PostgreSQL and SQLite really differ
//! (`FOR UPDATE`, `unnest` against `json_each`, upserts), both texts of a statement sit side by
//! side in one [`Sql`] value; how values are encoded (timestamps, id lists, JSON) is the
//! dialect's, decoding is [`RowColumns`](crate::row_columns::RowColumns)'.
//!
//! ```text
//! const GET: Sql = Sql::same("SELECT … FROM client_api_keys WHERE id = $1");
//! let row = Statement::<D>::new(&GET).bind(id.0).fetch_optional(self.reader()).await?;
//! ```
//!
//! The store itself is [`SqlStore<D>`](store::SqlStore): `PgStore` and `SqliteStore` are its
//! two instances; what only one database has (connecting, migrations, backups) stays in
//! `postgres/` and `sqlite/`.

pub(crate) mod accounts;
pub mod admin_transaction;
pub(crate) mod admin_users;
pub(crate) mod alert_settings;
mod arg;
pub(crate) mod audit;
pub(crate) mod backups;
pub(crate) mod client_keys;
pub(crate) mod cookie_jars;
pub(crate) mod credentials;
pub(crate) mod dialect;
pub(crate) mod egress_proxies;
pub(crate) mod groups;
pub mod key_rotation;
mod links;
pub(crate) mod ops_event_queries;
pub(crate) mod quota;
pub(crate) mod settings;
pub(crate) mod snapshot;
mod statement;
pub mod store;

pub(crate) use arg::Arg;
pub(crate) use dialect::{Dialect, On};
pub(crate) use statement::{Sql, Statement};

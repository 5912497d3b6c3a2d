//! Row mappers shared by the PostgreSQL and SQLite adapters: the same select lists and the
//! same mapping to domain types, over [`RowColumns`](crate::row_columns::RowColumns).

pub(crate) mod accounts;
pub(crate) mod admin_users;
pub(crate) mod alert_settings;
pub(crate) mod audit;
pub(crate) mod backups;
pub(crate) mod client_keys;
pub(crate) mod cookie_jars;
pub(crate) mod credentials;
pub(crate) mod egress_proxy;
pub(crate) mod ops_events;
pub(crate) mod request_update;
pub(crate) mod requests;
pub(crate) mod runtime_settings;
pub(crate) mod usage;

//! `CookieJarStore` (its one body for both dialects: `sql_shared::cookie_jars`).

use gateway_core::ports::StorageError;

use crate::postgres::PgStore;
use crate::postgres::column_values::timestamp as ts;
use crate::postgres::error_mapping::storage_error;

crate::sql_shared::cookie_jars::sql_cookie_jar_store!(PgStore, pool, pool);

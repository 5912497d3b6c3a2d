//! `CookieJarStore` (its one body for both dialects: `sql_shared::cookie_jars`); writes run on the
//! single writer connection.

use gateway_core::ports::StorageError;

use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::micros as ts;

crate::sql_shared::cookie_jars::sql_cookie_jar_store!(SqliteStore, reader, writer);

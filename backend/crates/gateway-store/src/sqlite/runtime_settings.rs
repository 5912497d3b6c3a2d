//! The runtime settings singleton: reading it, and the revision probe. Their one body for both
//! dialects is `sql_shared::settings_reads`.

use gateway_core::ports::StorageError;

use crate::sqlite::SqliteStore;
use crate::sqlite::error_mapping::storage_error;

crate::sql_shared::settings_reads::sql_settings_reads!(SqliteStore, SqliteExecutor, reader);

//! Reading accounts ([`AccountDirectory`](gateway_admin::ports::AccountDirectory) and the
//! snapshot loader): their one body for both dialects is `sql_shared::account_reads`.

use gateway_core::ports::StorageError;

use crate::postgres::PgStore;
use crate::postgres::error_mapping::storage_error;

crate::sql_shared::account_reads::sql_account_reads!(PgStore, PgExecutor, pool);

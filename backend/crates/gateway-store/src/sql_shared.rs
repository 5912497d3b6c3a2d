//! Dialect-free logic around the statements of the SQL adapter: how a result is shaped into the
//! port's answer, and the drivers that loop over statements. The statements themselves live
//! with their aggregate in `sql/` (decision 0344), or per database in `postgres/` and `sqlite/`.

pub(crate) mod audit_chain;
pub(crate) mod backup_steps;
pub(crate) mod migration_runner;
pub(crate) mod reseal;

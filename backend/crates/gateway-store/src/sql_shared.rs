//! Logic both SQL adapters run around their own SQL text (decision 0181): the values a statement
//! binds, how its result is shaped into the port's answer, and the drivers that loop over
//! statements. The SQL text itself stays in `postgres/` and `sqlite/`.

pub(crate) mod audit_chain;
pub(crate) mod backup_steps;
pub(crate) mod migration_runner;
pub(crate) mod reseal;

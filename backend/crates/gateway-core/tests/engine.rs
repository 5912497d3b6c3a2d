mod alerts;
mod candidates;
mod chain;
mod failover;
mod failover_table;
mod invariants;
mod pool_cache;
mod pool_usage;
pub mod support;

//! Storage and coordination adapters: PostgreSQL (sqlx), Redis (deadpool-redis) and S3, plus the
//! embedded SQLite / in-process adapters, and the system name resolver (`dns`). Each implements a
//! port defined in `gateway-core` or `gateway-admin`.
//!
//! Invariants:
//! - owns no business policy: it stores, loads and coordinates exactly what the ports ask;
//! - PostgreSQL is the only authority for business facts; Redis holds only state that can be
//!   lost, rebuilt or that expires by itself;
//! - credentials are encrypted at rest and never printed.

mod attempt_json;
pub mod backup;
pub mod config;
pub mod crypto;
pub mod dns;
pub mod memory;
pub mod postgres;
mod quota_windows;
pub mod redis;
mod row_columns;
mod rows;
pub mod sql;
mod sql_shared;
pub mod sqlite;
pub mod transfer;

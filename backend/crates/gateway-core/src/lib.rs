//! The request engine: operation, runtime snapshot, route plan, admission, account selection,
//! attempt coordination (send-state watermark and downstream commit barrier), failover policy
//! and accounting.
//!
//! Owns: every business rule of the data plane and the ports (traits) the engine needs from the
//! outside world: storage, coordination, providers.
//!
//! Invariants:
//! - knows nothing of HTTP, databases, Redis or any concrete provider; it only sees its ports;
//! - a request reads one frozen `RuntimeSnapshot` from start to finish;
//! - send state only rises (`not_sent < ambiguous < sent`) and `ambiguous` is never replayed;
//! - after the downstream commit no retry and no fallback happen.

pub mod accounting;
pub mod alerts;
pub mod catalog;
pub mod config;
pub mod coordination;
pub mod credential_import;
pub mod credential_refresh;
pub mod domain;
pub mod engine;
pub mod expiring_map;
pub mod fault;
pub mod oauth_login;
pub mod observation;
pub mod ports;
pub mod provider;
pub mod provider_credentials;
pub mod quota_probe;
pub mod quota_recorder;
pub mod redaction;
pub mod refresh_schedule;
pub mod request_recovery;
pub mod request_retention;
pub mod selection;
pub mod snapshot;
pub mod telemetry;
pub mod trace_context;

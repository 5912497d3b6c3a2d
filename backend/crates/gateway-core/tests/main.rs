//! Deterministic tests of gateway-core, mirroring `src/`.

mod accounting;
mod catalog;
mod config;
mod coordination;
mod domain;
mod engine;
mod expiring_map;
mod fixtures;
mod observation;
mod redaction;
mod refresh_schedule;
mod request_recovery;
mod request_retention;
mod selection;
mod snapshot;
mod telemetry;
mod token_refresh_error;
mod trace_context;

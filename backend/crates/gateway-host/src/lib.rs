//! The process host: configuration, logging, HTTP serve with graceful drain, the worker runtime,
//! the health endpoints and the self-update (check, verify, swap, health-checked restart with
//! rollback).
//!
//! Owns: how the process starts, runs and stops, its own configuration sections and the
//! generic configuration loader (the root type and the other sections are the binary's and
//! each crate's, decision 0225). It knows nothing of requests, accounts or
//! providers; the composition root (`apps/gateway`) hands it a router and workers.
//!
//! Invariants:
//! - configuration is read once at start (file, then `SWITCHBOARD_*` environment, then
//!   defaults) into a validated value; nothing reads the environment afterwards;
//! - shutdown has one absolute deadline from the signal for the HTTP drain; connections still
//!   open at the deadline are cut; workers then join within their own timeout;
//! - every client connection is bounded: a cap on open connections, and deadlines for the
//!   request head, the body and idleness (`serve`); nothing an unauthenticated peer sends can
//!   hold a connection past them;
//! - every spawned task belongs to the worker runtime, the server's connection set or the
//!   updater's task tracker and stops on the shutdown signal;
//! - the self-update never installs a binary it has not verified (checksum, signature when
//!   configured, the binary's own `version`) and always keeps the previous one.

pub mod build_info;
pub mod config;
pub mod health;
pub mod logging;
pub mod memory;
pub mod otlp;
pub mod serve;
pub mod shutdown;
pub mod update;
pub mod webhook_client;
pub mod workers;

pub use config::{ConfigError, ConfigRoot};
pub use health::{Health, ProbeRole, ReadinessProbe};
pub use serve::{ConnectionLimits, ServeOutcome, Server};
pub use shutdown::Shutdown;
pub use workers::{FnWorker, Worker, WorkerContext, WorkerError, WorkerFuture, WorkerRuntime};

//! Integration tests of the `switchboard` package: architecture rules, the command line and the
//! real binary end to end (simulator upstream, real PostgreSQL and Redis).

mod accounts;
mod admin_api;
mod architecture;
mod cli;
mod compat;
mod config;
mod continuation;
mod dashboard;
mod data_plane;
mod deploy;
mod embedded;
mod gateway;
mod health;
mod migration_manifest;
mod otlp_sink;
mod release;
mod self_update;
mod wire;

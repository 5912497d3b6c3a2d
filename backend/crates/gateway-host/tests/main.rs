//! Tests of gateway-host, mirroring `src/`.

mod config;
mod health;
mod memory;
mod otlp;
mod serve;
mod update;
mod webhook_client;
mod workers;

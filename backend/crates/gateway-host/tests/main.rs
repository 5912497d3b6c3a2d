//! Tests of gateway-host, mirroring `src/`.

mod config;
mod health;
mod memory;
mod serve;
mod update;
mod workers;

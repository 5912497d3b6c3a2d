//! Tests of gateway-host, mirroring `src/`.

mod config;
mod health;
mod serve;
mod workers;

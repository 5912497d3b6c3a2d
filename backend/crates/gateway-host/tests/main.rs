//! Tests of gateway-host, mirroring `src/`.

mod config;
mod serve;
mod workers;

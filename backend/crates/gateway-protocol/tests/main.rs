//! Tests of gateway-protocol, mirroring `src/`.

mod aggregate;
mod error;
mod events;
mod request;
mod sse;

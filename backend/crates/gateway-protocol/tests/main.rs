//! Tests of gateway-protocol, mirroring `src/`.

mod aggregate;
mod chat;
mod error;
mod events;
mod request;
mod sse;

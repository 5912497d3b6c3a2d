//! Tests of gateway-protocol, mirroring `src/`.

mod aggregate;
mod chat;
mod codex_catalog;
mod error;
mod events;
mod request;
mod sse;
mod zed;

//! The OpenAI (ChatGPT/Codex) provider: credential document, OAuth login/import/refresh,
//! catalog, HTTP SSE and WebSocket transport, error classification and quota projection.
//!
//! Invariants:
//! - byte-transparent: request fields and their order are kept (except the controlled model
//!   mapping); upstream SSE frames reach the client as the original bytes;
//! - one `execute` selects one credential and prepares one cold stream: no hidden account
//!   switching or retry;
//! - never depends on another provider crate.

//! The OpenAI (ChatGPT/Codex) provider: credential document, OAuth refresh, catalog, HTTP SSE
//! transport to the Codex backend, error classification and quota projection.
//!
//! Invariants:
//! - byte-transparent: request fields and their order are kept except the controlled edits
//!   (model mapping, `stream`/`store` as the backend requires, parameters it refuses); upstream
//!   SSE frames reach the client as the original bytes; gateway-internal frames are consumed;
//! - one `execute` selects one credential and prepares one cold stream: no hidden account
//!   switching or retry;
//! - the account and its credential are bound to each call explicitly; pooled connections carry
//!   no identity;
//! - never depends on another provider crate.

pub mod catalog;
pub mod claims;
pub mod classify;
pub mod credential;
pub mod import;
pub mod importer;
pub mod models;
pub mod oauth;
pub mod provider;
pub mod rate_limits;
pub mod refresh;
pub mod renewer;
pub mod request_profile;
pub mod settings;
pub mod transport;
pub mod upstream_url;
pub mod usage;
pub mod version_check;

pub use provider::OpenAiProvider;
pub use settings::OpenAiSettings;

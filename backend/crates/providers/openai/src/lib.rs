//! The OpenAI (ChatGPT/Codex) provider: credential document, import, OAuth login (browser and
//! device code) and refresh, per-account catalog, usage probe, request profile with its version
//! check, HTTP SSE transport to the Codex backend, error classification and quota projection.
//! It implements the core ports of the account lifecycle (`CredentialImporter`,
//! `CredentialRenewer`, `OAuthLogin`, `QuotaProbe`, `CatalogSource`); scheduling, single flight
//! and persistence are core's (`docs/accounts.md`).
//!
//! Invariants:
//! - byte-transparent: request fields and their order are kept except the controlled edits
//!   (model mapping, `stream`/`store` as the backend requires, parameters it refuses, and for a
//!   non-Codex client's turn the Codex fields that change nothing in its answer, `codex_turn.rs`);
//!   upstream
//!   SSE frames reach the client as the original bytes; gateway-internal frames are consumed;
//! - one `execute` selects one credential and prepares one cold stream: no hidden account
//!   switching or retry;
//! - the account and its credential are bound to each call explicitly; pooled connections carry
//!   no identity;
//! - a rotated refresh token is only ever returned to the core refresher, which stores it before
//!   anyone uses the new access token; this crate never retries a refresh with a spent token;
//! - every upstream URL (backend, issuer, appcast) passes the SSRF guard (`upstream_url.rs`);
//! - never depends on another provider crate.

pub mod catalog;
pub mod claims;
pub mod classify;
pub mod codex_turn;
pub mod compact;
pub mod config;
pub mod cookie_jars;
pub mod credential;
pub mod egress;
pub mod identity;
pub mod import;
pub mod importer;
pub mod models;
pub mod oauth;
pub mod provider;
pub mod rate_limits;
pub mod refresh;
pub mod renewer;
pub mod request_compression;
pub mod request_profile;
pub mod settings;
pub mod socket_route;
pub mod transport;
pub mod upstream_url;
pub mod usage;
pub mod version_check;
pub mod websocket;

pub use config::OpenAiConfig;
pub use provider::OpenAiProvider;
pub use settings::{InvalidSetting, OpenAiSetting, OpenAiSettings};

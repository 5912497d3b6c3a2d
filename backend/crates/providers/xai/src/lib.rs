//! The xAI (Grok) provider: credential document, Grok CLI `auth.json` import, OAuth login
//! (browser PKCE with paste-back, device code; ID tokens verified against the issuer's JWKS),
//! refresh, catalog, billing quota, the Grok CLI version check, and a translating transport
//! that re-synthesises Grok output as clean Responses events. It implements the same core
//! ports as every provider (`CredentialImporter`, `CredentialRenewer`, `OAuthLogin`,
//! `QuotaProbe`, `CatalogSource`); scheduling, single flight and persistence are core's.
//!
//! Invariants:
//! - not byte-transparent by design: the body is edited (PROTOCOL H.3) and the stream
//!   re-synthesised (H.4); account fingerprints (UUIDs) in upstream messages are replaced by a
//!   placeholder before they can reach a client;
//! - one `execute` uses one credential and prepares one cold stream; its one resend is the
//!   history without reasoning ciphertext after xAI could not decrypt it (PROTOCOL H.5,
//!   decision 0277), on the same account, before anything reached the client; a native
//!   continuation xAI no longer holds is replayed from the gateway's transcript the same way
//!   (decision 0290);
//! - every upstream URL passes the shared SSRF guard (`gateway_transport::upstream_url`);
//! - the network only through gateway-transport; never depends on another provider crate.

pub mod billing;
pub mod catalog;
pub mod classify;
pub mod compact;
pub mod config;
pub mod continuation;
pub mod credential;
pub mod egress;
pub mod events;
pub mod headers;
pub mod history;
pub mod import;
pub mod importer;
pub mod inband;
pub mod models;
pub mod oauth;
pub mod oauth_device;
pub mod provider;
pub mod reasoning;
pub mod refresh;
pub mod renewer;
pub mod replay;
pub mod request;
pub mod settings;
pub mod tool_calls;
pub mod tools;
pub mod transport;
pub mod version_check;

pub use config::XaiConfig;
pub use provider::XaiProvider;
pub use settings::{InvalidSetting, XaiSetting, XaiSettings};

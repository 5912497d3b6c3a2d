//! The xAI (Grok) provider: credential document, OAuth, catalog and a translating transport that
//! re-synthesises Grok output as Responses events.
//!
//! Invariants:
//! - not byte-transparent by design; account fingerprints (UUIDs) in upstream messages are
//!   replaced by a placeholder before they can reach a client;
//! - never depends on another provider crate.

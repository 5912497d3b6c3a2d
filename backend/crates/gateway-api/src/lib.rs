//! HTTP adapters (axum): the OpenAI-compatible client API, the admin API and the static SPA.
//!
//! Invariants:
//! - decodes, authenticates and encodes; every decision is delegated to `gateway-core` or
//!   `gateway-admin`;
//! - never imports a provider, `gateway-store` or an infrastructure crate (sqlx, redis, aws-*);
//! - every error reaching a client has the OpenAI error shape (client API) or the admin envelope.

pub mod access_log;
pub mod admin;
pub mod client;
pub mod metrics;
pub mod spa;

pub use access_log::with_access_log;
pub use admin::{AdminHttpConfig, AdminPorts, AlertPorts, AuthSettings, admin_openapi, admin_routes};
pub use client::{ClientApi, client_routes, overloaded_routes};
pub use metrics::{Metrics, MetricsConfig, metrics_routes};
pub use spa::{embedded_spa_routes, spa_routes};

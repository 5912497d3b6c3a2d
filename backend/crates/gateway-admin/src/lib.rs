//! The admin domain: use cases behind the admin API and the command line (accounts, groups,
//! client keys, runtime settings, usage, audit, backups) and the ports they need.
//!
//! Invariants:
//! - every mutation that changes routing or security runs as one unit of work that also bumps
//!   `config_revision` and writes a redacted audit row;
//! - no secret (token, key, password) ever appears in an audit row, an error or a `Debug` output;
//! - knows nothing of HTTP, SQL or Redis: adapters implement its ports.

pub mod account_edits;
pub mod account_import;
pub mod account_views;
pub mod accounts;
pub mod admin_user;
pub mod alert_settings;
pub mod alerting;
pub mod audit;
pub mod auth;
pub mod backup;
pub mod backup_actions;
pub mod backup_daemon;
pub mod backup_settings;
pub mod change_publishing;
pub mod client_keys;
pub mod config;
pub mod egress_proxies;
pub mod error;
pub mod groups;
pub mod oauth;
pub mod password_reset;
pub mod passwords;
pub mod ports;
pub mod services;
pub mod settings;
pub mod system;
pub mod url_guard;
pub mod usage;

pub use error::AdminError;

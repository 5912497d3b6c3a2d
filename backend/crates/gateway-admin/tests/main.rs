//! Tests of the gateway-admin package: pure rules of the admin use cases (validation,
//! passwords, tokens, buckets, redaction of audit details).

mod alerting;
mod auth;
mod backup_daemon;
mod egress_proxies;
mod login;
mod oauth_sealing;
mod services;
mod settings;
mod standing;
mod totp;
mod url_guard;
mod usage;

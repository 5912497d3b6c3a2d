//! The real binary: configuration errors, version, and lifecycle (SIGTERM drain).

mod config_errors;
mod lifecycle;

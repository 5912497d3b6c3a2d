//! The identity of the running build: its version.
//!
//! The version is the workspace version the binary was compiled with (`release/version.yaml`
//! keeps them equal). `SWITCHBOARD_BUILD_VERSION_OVERRIDE`, read once at start-up, replaces it:
//! the self-update end-to-end test makes copies of one build report different versions with it
//! (decision 0194). It is not configuration and nothing else reads it.

use std::sync::OnceLock;

/// The environment variable that overrides the reported version.
pub const VERSION_OVERRIDE_ENV: &str = "SWITCHBOARD_BUILD_VERSION_OVERRIDE";

static VERSION: OnceLock<String> = OnceLock::new();

/// Fixes the version for the life of the process from the override, when it holds a version
/// (`MAJOR.MINOR.PATCH[-PRE]`); returns the override when one was refused. Later calls change
/// nothing.
pub fn init(override_value: Option<String>) -> Option<String> {
    let value = override_value.filter(|v| !v.is_empty())?;
    if semver::Version::parse(&value).is_err() {
        return Some(value);
    }
    let _ = VERSION.set(value);
    None
}

/// The override from the process environment (call once, at start-up).
pub fn init_from_env() -> Option<String> {
    init(std::env::var(VERSION_OVERRIDE_ENV).ok())
}

/// The version this process reports everywhere (`switchboard version`, `/healthz`, the admin
/// API, the self-update).
pub fn version() -> &'static str {
    VERSION.get().map_or(env!("CARGO_PKG_VERSION"), String::as_str)
}

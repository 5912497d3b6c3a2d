//! The `tracing` section: the access log.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TracingConfig {
    /// One `info` line per HTTP request (method, path, status, duration, request id).
    pub access_log: bool,
}

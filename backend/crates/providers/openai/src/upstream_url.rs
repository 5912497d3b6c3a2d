//! The SSRF guard for configured upstream URLs lives in the shared transport
//! (`gateway_transport::upstream_url`), so every provider applies the same rule.

pub use gateway_transport::upstream_url::*;

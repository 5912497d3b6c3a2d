//! Money as an integer count of nano-USD (1 USD = 1,000,000,000): exact sums, no float drift,
//! and fine enough for per-token prices of cheap models.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NanoUsd(pub i64);

impl NanoUsd {
    pub const PER_USD: i64 = 1_000_000_000;

    pub const fn from_usd(usd: i64) -> Self {
        Self(usd * Self::PER_USD)
    }
}

impl fmt::Display for NanoUsd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        write!(f, "{sign}${}.{:09}", abs / 1_000_000_000, abs % 1_000_000_000)
    }
}

//! The static quota facts the strategies sort on, reduced from the account's quota windows.

use crate::domain::QuotaFacts;
use crate::domain::quota_window::next_reset;

/// An account's quota standing as of the snapshot: how much of its windows is used and when
/// the first of them resets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QuotaStanding {
    /// The highest used share among the windows, in basis points (0 when unknown; 100 % =
    /// 10 000; above 100 % is kept as reported).
    pub used_basis_points: u32,
    /// The earliest window reset (unix seconds), if any window reports one.
    pub next_reset: Option<i64>,
}

impl QuotaStanding {
    pub fn of(quota: &QuotaFacts) -> Self {
        let used = quota.windows.iter().map(|w| w.used_percent).fold(0.0, f64::max);
        // Finite, non-negative and bounded before the cast (a NaN or negative reads as 0).
        let used_basis_points = if used.is_finite() && used > 0.0 { (used * 100.0).round().min(1e9) as u32 } else { 0 };
        Self { used_basis_points, next_reset: next_reset(&quota.windows) }
    }
}

//! The static quota facts the strategies sort on, reduced from the account's quota windows.

use crate::domain::QuotaFacts;

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
        let windows = quota.windows.as_array().map(Vec::as_slice).unwrap_or(&[]);
        let used = windows
            .iter()
            .filter_map(|w| w.get("used_percent").and_then(serde_json::Value::as_f64))
            .fold(0.0, f64::max);
        // Finite, non-negative and bounded before the cast (a NaN or negative reads as 0).
        let used_basis_points = if used.is_finite() && used > 0.0 { (used * 100.0).round().min(1e9) as u32 } else { 0 };
        Self {
            used_basis_points,
            next_reset: windows.iter().filter_map(|w| w.get("reset_at").and_then(serde_json::Value::as_i64)).min(),
        }
    }
}

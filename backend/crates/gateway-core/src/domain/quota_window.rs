//! One quota window of an account, as its provider reports it (typed; serde lives at the store
//! and API edges).

/// A provider quota window: how much of it is used and when it resets.
#[derive(Debug, Clone, PartialEq)]
pub struct QuotaWindow {
    /// The provider's label (OpenAI: `primary` = the 5-hour window, `secondary` = the weekly one).
    pub name: String,
    /// Used share in percent, as reported (may exceed 100).
    pub used_percent: f64,
    /// The window's length, when reported.
    pub window_minutes: Option<i64>,
    /// When the window resets (unix seconds), when reported.
    pub reset_at: Option<i64>,
    /// The plan the provider reported with the window.
    pub plan_type: Option<String>,
}

impl QuotaWindow {
    /// At or above 100 %.
    pub fn is_full(&self) -> bool {
        self.used_percent >= 100.0
    }
}

/// The latest reset among the full windows (a full 5-hour window must not wait for the weekly
/// window's reset).
pub fn full_windows_reset(windows: &[QuotaWindow]) -> Option<i64> {
    windows.iter().filter(|w| w.is_full()).filter_map(|w| w.reset_at).max()
}

/// The earliest reset of any window.
pub fn next_reset(windows: &[QuotaWindow]) -> Option<i64> {
    windows.iter().filter_map(|w| w.reset_at).min()
}

/// When an exhausted account may work again: the latest reset among its full windows; when no
/// window is full (the evidence was a flag), the earliest reset of any window.
pub fn exhausted_reset(windows: &[QuotaWindow]) -> Option<i64> {
    full_windows_reset(windows).or_else(|| next_reset(windows))
}

//! Quota facts from the Codex backend's `x-codex-*` rate-limit headers and `codex.rate_limits`
//! events. Facts only: these headers never reach clients.

use serde_json::Value;
use time::OffsetDateTime;

use gateway_core::domain::quota_window::full_windows_reset;
use gateway_core::domain::{QuotaFacts, QuotaState, QuotaWindow};

/// One quota window (the plan is added once it is known).
fn window(name: &str, used_percent: f64, window_minutes: Option<i64>, reset_at: Option<i64>) -> QuotaWindow {
    QuotaWindow { name: name.to_owned(), used_percent, window_minutes, reset_at, plan_type: None }
}

/// Reads the `x-codex-primary-*` / `x-codex-secondary-*` headers. `None` when the response
/// carried no window (a window with 0 %, 0 minutes and no reset is ignored, as Codex does).
pub fn from_headers(headers: &http::HeaderMap, state: QuotaState, now: OffsetDateTime) -> Option<QuotaFacts> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim).filter(|v| !v.is_empty());
    let mut windows = Vec::new();
    for family in ["primary", "secondary"] {
        let used = get(&format!("x-codex-{family}-used-percent")).and_then(|v| v.parse::<f64>().ok());
        let minutes = get(&format!("x-codex-{family}-window-minutes")).and_then(|v| v.parse::<i64>().ok());
        let reset_at = get(&format!("x-codex-{family}-reset-at")).and_then(|v| v.parse::<i64>().ok()).or_else(|| {
            get(&format!("x-codex-{family}-reset-after-seconds"))
                .and_then(|v| v.parse::<i64>().ok())
                .map(|after| now.unix_timestamp() + after)
        });
        let Some(used) = used else { continue };
        if used == 0.0 && minutes.unwrap_or(0) == 0 && reset_at.is_none() {
            continue;
        }
        windows.push(window(family, used, minutes, reset_at));
    }
    if windows.is_empty() {
        return None;
    }
    if let Some(plan) = get("x-codex-plan-type") {
        for window in &mut windows {
            window.plan_type = Some(plan.to_owned());
        }
    }
    Some(QuotaFacts { state, windows, observed_at: Some(now) })
}

/// Reads a `codex.rate_limits` event payload.
pub fn from_event(data: &[u8], now: OffsetDateTime) -> Option<QuotaFacts> {
    let event: Value = serde_json::from_slice(data).ok()?;
    let limits = event.get("rate_limits")?;
    let mut windows = Vec::new();
    for family in ["primary", "secondary"] {
        let Some(w) = limits.get(family).filter(|w| w.is_object()) else { continue };
        let Some(used) = w.get("used_percent").and_then(Value::as_f64) else { continue };
        let minutes = w.get("window_minutes").and_then(Value::as_i64);
        let reset_at = w
            .get("reset_at")
            .and_then(Value::as_i64)
            .or_else(|| w.get("reset_after_seconds").and_then(Value::as_i64).map(|s| now.unix_timestamp() + s));
        windows.push(window(family, used, minutes, reset_at));
    }
    if windows.is_empty() {
        return None;
    }
    let limit_reached = limits.get("limit_reached").and_then(Value::as_bool) == Some(true)
        || limits.get("allowed").and_then(Value::as_bool) == Some(false);
    let state = if limit_reached { QuotaState::Exhausted } else { QuotaState::Allowed };
    Some(QuotaFacts { state, windows, observed_at: Some(now) })
}

/// The latest reset among the windows that are at 100 %: when an exhausted account may work
/// again.
pub fn exhausted_until(facts: &QuotaFacts) -> Option<i64> {
    full_windows_reset(&facts.windows)
}

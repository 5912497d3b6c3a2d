//! Time as the coordination store sees it.

use std::fmt;
use std::time::Duration;

/// Milliseconds since the Unix epoch, read from the coordination store's clock (Redis `TIME`
/// inside scripts), so that every replica compares deadlines against the same clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct UnixMillis(pub u64);

impl UnixMillis {
    /// The time `duration` after this one (saturating).
    pub fn after(self, duration: Duration) -> Self {
        Self(self.0.saturating_add(duration_millis(duration)))
    }

    /// How long from `now` until this instant; zero if it has passed.
    pub fn remaining_from(self, now: UnixMillis) -> Duration {
        Duration::from_millis(self.0.saturating_sub(now.0))
    }
}

impl fmt::Display for UnixMillis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.0)
    }
}

/// Whole milliseconds of a duration, saturating at `u64::MAX`.
pub fn duration_millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

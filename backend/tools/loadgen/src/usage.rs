//! What loadgen itself costs: its CPU time and peak memory, read from `/proc/self` (Linux), so
//! that a harness can tell whether the generator was close to being the bottleneck.

use std::time::Duration;

/// Linux reports `/proc/self/stat` times in USER_HZ ticks, fixed at 100 per second for user space.
const TICKS_PER_SECOND: u64 = 100;

/// CPU time (user + system) used by this process so far, `None` where `/proc` is unavailable.
pub fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may contain spaces; the fields after it start with the state.
    let after_name = stat.rsplit_once(')')?.1;
    let mut fields = after_name.split_whitespace();
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 1000 / TICKS_PER_SECOND))
}

/// Peak resident memory of this process in KiB (`VmHWM`).
pub fn max_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

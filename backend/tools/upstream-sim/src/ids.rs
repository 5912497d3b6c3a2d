//! Unique ids, opaque tokens and high-entropy filler bytes.
//!
//! Not cryptographic: this is a test server. Ids are unique within a process because they are a
//! bijection (splitmix64) of a process seed mixed with a counter.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static COUNTER: AtomicU64 = AtomicU64::new(1);
static SEED: OnceLock<u64> = OnceLock::new();

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn seed() -> u64 {
    *SEED.get_or_init(|| {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(7);
        splitmix(nanos ^ u64::from(std::process::id()))
    })
}

/// A fresh 64-bit value, never repeated within this process.
pub fn next_u64() -> u64 {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    splitmix(seed() ^ splitmix(n))
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// 32 lowercase hex characters, unique within the process (the first half is unique on its own).
pub fn hex32() -> [u8; 32] {
    let mut out = [0u8; 32];
    for (half, value) in [next_u64(), next_u64()].into_iter().enumerate() {
        for i in 0..16 {
            out[half * 16 + i] = HEX[((value >> (60 - 4 * i)) & 0xf) as usize];
        }
    }
    out
}

/// `prefix` followed by 32 unique hex characters.
pub fn token(prefix: &str) -> String {
    let hex = hex32();
    let mut out = String::with_capacity(prefix.len() + 32);
    out.push_str(prefix);
    out.extend(hex.iter().map(|b| char::from(*b)));
    out
}

/// `len` bytes of high-entropy filler (for ciphertext-looking fields).
pub fn filler_bytes(len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(&next_u64().to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Seconds since the Unix epoch.
pub fn now_unix() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// A short user code like `ABCD-12345` (device flows).
pub fn user_code() -> String {
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ";
    let value = next_u64();
    let mut out = String::with_capacity(10);
    for i in 0..4 {
        out.push(char::from(LETTERS[((value >> (i * 8)) % LETTERS.len() as u64) as usize]));
    }
    out.push('-');
    out.push_str(&format!("{:05}", (value >> 32) % 100_000));
    out
}

/// RFC 3339 UTC timestamp for a Unix time (`2026-03-15T12:34:56Z`).
pub fn rfc3339(unix: u64) -> String {
    let (year, month, day) = civil_date(unix);
    let secs = unix % 86_400;
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", secs / 3_600, (secs % 3_600) / 60, secs % 60)
}

/// HTTP-date in the IMF-fixdate form for a Unix time (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110
/// 5.6.7): `Retry-After`, cookie `expires`.
pub fn http_date(unix: u64) -> String {
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let (year, month, day) = civil_date(unix);
    let weekday = WEEKDAYS[((unix / 86_400) % 7) as usize];
    let name = MONTHS[(month - 1) as usize];
    let secs = unix % 86_400;
    format!("{weekday}, {day:02} {name} {year:04} {:02}:{:02}:{:02} GMT", secs / 3_600, (secs % 3_600) / 60, secs % 60)
}

/// `(year, month 1-12, day 1-31)` of a Unix time, UTC (Howard Hinnant's civil-from-days).
fn civil_date(unix: u64) -> (i64, i64, i64) {
    let z = (unix / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

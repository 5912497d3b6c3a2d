//! Time-based one-time passwords (RFC 6238 over RFC 4226): HMAC-SHA-1, 30-second steps,
//! 6 digits — what every authenticator app defaults to.
//!
//! A code is accepted for the current step and one step either side (clock drift), and only
//! once per user and step (the caller marks the step used in coordination storage).

use hmac::{Hmac, KeyInit, Mac};
use sha1::Sha1;
use time::OffsetDateTime;

use crate::admin_user::TotpSecret;
use crate::auth::constant_time_eq;

pub const STEP_SECONDS: i64 = 30;
pub const DIGITS: u32 = 6;
/// 160-bit secrets (RFC 4226 §4 recommends at least 128, 160 matches the hash).
pub const SECRET_BYTES: usize = 20;
/// Steps accepted on either side of the current one.
pub const DRIFT_STEPS: i64 = 1;
/// Shown by authenticator apps next to the account name.
pub const ISSUER: &str = "Switchboard";

/// A fresh random secret.
pub fn generate_secret() -> TotpSecret {
    let bytes: [u8; SECRET_BYTES] = rand::random();
    TotpSecret::new(bytes.to_vec())
}

/// The step counter of a Unix time (seconds).
pub fn step_at(unix_seconds: i64) -> i64 {
    unix_seconds.div_euclid(STEP_SECONDS)
}

/// The HOTP value of `counter` (RFC 4226 §5.3, dynamic truncation), `DIGITS` digits.
pub fn hotp(secret: &[u8], counter: u64) -> u32 {
    // HMAC accepts keys of any length; the error branch cannot happen.
    let Ok(mut mac) = <Hmac<Sha1> as KeyInit>::new_from_slice(secret) else { return u32::MAX };
    mac.update(&counter.to_be_bytes());
    let digest = mac.finalize().into_bytes();
    let offset = usize::from(digest[digest.len() - 1] & 0x0f);
    let binary = (u32::from(digest[offset]) & 0x7f) << 24
        | u32::from(digest[offset + 1]) << 16
        | u32::from(digest[offset + 2]) << 8
        | u32::from(digest[offset + 3]);
    binary % 10u32.pow(DIGITS)
}

/// The code for the step containing `unix_seconds`, zero-padded.
pub fn code_at(secret: &[u8], unix_seconds: i64) -> String {
    format_code(hotp(secret, u64::try_from(step_at(unix_seconds)).unwrap_or(0)))
}

fn format_code(value: u32) -> String {
    format!("{value:0width$}", width = DIGITS as usize)
}

/// A submitted code, normalised: surrounding and inner spaces dropped (apps show `123 456`);
/// `None` unless exactly `DIGITS` ASCII digits remain.
pub fn normalise_code(code: &str) -> Option<String> {
    let digits: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    (digits.len() == DIGITS as usize && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// The step whose code equals `code` within the drift window around `now`, if any.
pub fn matching_step(secret: &TotpSecret, code: &str, now: OffsetDateTime) -> Option<i64> {
    let code = normalise_code(code)?;
    let current = step_at(now.unix_timestamp());
    let mut found = None;
    // Every candidate is computed and compared, so the time taken does not tell which matched.
    for step in current - DRIFT_STEPS..=current + DRIFT_STEPS {
        let Ok(counter) = u64::try_from(step) else { continue };
        let expected = format_code(hotp(secret.expose(), counter));
        if constant_time_eq(expected.as_bytes(), code.as_bytes()) && found.is_none() {
            found = Some(step);
        }
    }
    found
}

/// RFC 4648 base32 without padding (what `otpauth://` URIs and manual entry use).
pub fn base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &byte in bytes {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((buffer >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

/// The provisioning URI authenticator apps scan (Key Uri Format): label `Switchboard:<user>`.
pub fn otpauth_uri(secret: &TotpSecret, username: &str) -> String {
    let label = format!("{}:{}", percent_encode(ISSUER), percent_encode(username));
    format!(
        "otpauth://totp/{label}?secret={}&issuer={}&algorithm=SHA1&digits={DIGITS}&period={STEP_SECONDS}",
        base32(secret.expose()),
        percent_encode(ISSUER)
    )
}

fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => char::from(b).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}

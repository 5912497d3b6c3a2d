//! Last-line redaction of audit details: values under keys that name a secret are replaced.
//! Use cases should not put secrets in details at all; this catches mistakes.

use serde_json::Value;

/// The replacement text.
pub const REDACTED: &str = "[REDACTED]";

/// Key endings (lowercase, `-` read as `_`) that mark a secret value: `refresh_token`,
/// `secret_access_key`… but not `daily_token_budget` or `credential_revision`.
const SECRET_KEY_SUFFIXES: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "api_key",
    "apikey",
    "access_key",
    "authorization",
    "cookie",
    "credential",
    "credentials",
    "private_key",
    "master_key",
    "ciphertext",
];

/// Returns `details` with every value whose key names a secret replaced by `"[REDACTED]"`, at
/// any depth.
pub fn redact_details(details: Value) -> Value {
    match details {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    if is_secret_key(&key) {
                        (key, Value::String(REDACTED.to_owned()))
                    } else {
                        (key, redact_details(value))
                    }
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(redact_details).collect()),
        scalar => scalar,
    }
}

fn is_secret_key(key: &str) -> bool {
    let lower = key.to_ascii_lowercase().replace('-', "_");
    SECRET_KEY_SUFFIXES.iter().any(|suffix| lower.ends_with(suffix))
}

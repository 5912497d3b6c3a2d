//! Reading what the admin pastes after consent: the whole address the browser landed on
//! (`http://localhost:1455/auth/callback?code=…&state=…`), or only its query (with or without
//! `?`). A bare code is refused: without `state` the callback cannot be bound to its flow.

/// The parts of a callback that matter.
#[derive(Clone, PartialEq, Eq)]
pub struct Callback {
    pub code: Option<String>,
    pub state: Option<String>,
    /// `error` / `error_description` of a refused consent.
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl std::fmt::Debug for Callback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callback")
            .field("code", &self.code.as_ref().map(|_| "[REDACTED]"))
            .field("state", &self.state.as_ref().map(|_| "[REDACTED]"))
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

/// Why a pasted callback cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallbackRejected {
    #[error("paste the whole address the browser shows after consent (it carries code and state)")]
    NoQuery,
    #[error("the callback has no state")]
    NoState,
    #[error("the callback has no code")]
    NoCode,
}

/// Parses a pasted callback address or query.
pub fn parse_callback(input: &str) -> Result<Callback, CallbackRejected> {
    let input = input.trim();
    let query = match input.split_once('?') {
        Some((_, query)) => query,
        None if input.contains('=') => input,
        None => return Err(CallbackRejected::NoQuery),
    };
    let query = query.split('#').next().unwrap_or(query);
    let mut callback = Callback { code: None, state: None, error: None, error_description: None };
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = decode(value);
        let slot = match key {
            "code" => &mut callback.code,
            "state" => &mut callback.state,
            "error" => &mut callback.error,
            "error_description" => &mut callback.error_description,
            _ => continue,
        };
        if !value.is_empty() && slot.is_none() {
            *slot = Some(value);
        }
    }
    if callback.state.is_none() {
        return Err(CallbackRejected::NoState);
    }
    if callback.code.is_none() && callback.error.is_none() {
        return Err(CallbackRejected::NoCode);
    }
    Ok(callback)
}

/// `application/x-www-form-urlencoded` value decoding (`+` is a space, `%XX` a byte).
fn decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

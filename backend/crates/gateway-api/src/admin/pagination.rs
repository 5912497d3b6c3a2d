//! Cursor pagination: `limit` (1–200, default 50) and an opaque `cursor` taken from the
//! previous page's `nextCursor` (absent on the last page).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::admin::envelope::ApiFailure;

pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 200;

pub fn limit(requested: Option<u32>) -> Result<u32, ApiFailure> {
    match requested {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(_) => Err(ApiFailure::invalid("limit", format!("must be 1 to {MAX_LIMIT}"))),
    }
}

pub fn encode(position: &str) -> String {
    URL_SAFE_NO_PAD.encode(position.as_bytes())
}

pub fn decode(cursor: &str) -> Result<String, ApiFailure> {
    URL_SAFE_NO_PAD
        .decode(cursor.as_bytes())
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| ApiFailure::invalid("cursor", "is not a cursor returned by this API"))
}

/// A cursor that holds one integer (an id or an offset).
pub fn decode_number(cursor: Option<&str>) -> Result<Option<i64>, ApiFailure> {
    cursor
        .map(|c| {
            decode(c)?.parse::<i64>().map_err(|_| ApiFailure::invalid("cursor", "is not a cursor returned by this API"))
        })
        .transpose()
}

/// The next cursor of a page fetched with `limit + 1` rows: `Some` when there is more.
pub fn next_cursor<T>(rows: &mut Vec<T>, limit: u32, position: impl Fn(&T) -> String) -> Option<String> {
    if rows.len() > limit as usize {
        rows.truncate(limit as usize);
        rows.last().map(|last| encode(&position(last)))
    } else {
        None
    }
}

//! Client authentication against the frozen snapshot: a SHA-256 lookup, no I/O.

use std::sync::Arc;

use gateway_protocol::{ApiError, ErrorCode};
use time::OffsetDateTime;

use crate::domain::ClientKeyHash;
use crate::snapshot::{KeyEntry, RuntimeSnapshot};

/// Finds the key the client presented (`Authorization: Bearer …` or `x-api-key`).
pub fn authenticate(
    snapshot: &RuntimeSnapshot,
    presented: Option<&str>,
    now: OffsetDateTime,
) -> Result<Arc<KeyEntry>, ApiError> {
    let Some(presented) = presented.map(str::trim).filter(|k| !k.is_empty()) else {
        return Err(ApiError::new(
            ErrorCode::InvalidApiKey,
            "Missing API key: send it as `Authorization: Bearer <key>` or `x-api-key: <key>`.",
        ));
    };
    let Some(key) = snapshot.key(&ClientKeyHash::of(presented)) else {
        return Err(ApiError::new(ErrorCode::InvalidApiKey, "Incorrect API key provided."));
    };
    if !key.record.enabled {
        return Err(ApiError::new(ErrorCode::ApiKeyDisabled, "This API key is disabled."));
    }
    if key.record.expires_at.is_some_and(|at| at <= now) {
        return Err(ApiError::new(ErrorCode::ApiKeyExpired, "This API key has expired."));
    }
    Ok(key.clone())
}

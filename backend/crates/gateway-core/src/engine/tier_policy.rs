//! The key's `service_tier` policy (decision 0265), applied after decode and before the route
//! plan, so a refusal happens before anything is recorded, sent or charged to an account.

use bytes::Bytes;
use gateway_protocol::request::{BodyEdit, RequestBody};
use gateway_protocol::{ApiError, ErrorCode};

use crate::domain::ServiceTierPolicy;

/// The tier `force_priority` sends upstream.
pub const PRIORITY: &str = "priority";

/// Tiers that ask for nothing beyond the default processing (`deny` lets them through).
const DEFAULT_TIERS: &[&str] = &["auto", "default"];

/// Applies `policy` to the body: `allow` leaves it alone, `deny` refuses a non-default tier
/// with 400 naming `service_tier`, `force_priority` sets `service_tier: "priority"` (and the
/// view is read again over the edited body).
pub fn enforce(policy: ServiceTierPolicy, body: &mut Bytes, view: &mut RequestBody) -> Result<(), ApiError> {
    match policy {
        ServiceTierPolicy::Allow => Ok(()),
        ServiceTierPolicy::Deny => deny(body, view),
        ServiceTierPolicy::ForcePriority => force_priority(body, view),
    }
}

fn deny(body: &[u8], view: &RequestBody) -> Result<(), ApiError> {
    let tier = view
        .string(body, "service_tier")
        .map_err(|error| ApiError::new(ErrorCode::InvalidRequest, error.to_string()).with_param("service_tier"))?;
    match tier {
        Some(tier) if !DEFAULT_TIERS.contains(&tier.as_str()) => Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "This API key may not choose a service tier: 'service_tier' must be absent, 'auto' or 'default', not '{tier}'."
            ),
        )
        .with_param("service_tier")),
        _ => Ok(()),
    }
}

fn force_priority(body: &mut Bytes, view: &mut RequestBody) -> Result<(), ApiError> {
    if view.string(body, "service_tier").ok().flatten().as_deref() == Some(PRIORITY) {
        return Ok(());
    }
    let mut edit = BodyEdit::new();
    edit.set_string("service_tier", PRIORITY);
    let edited = edit.splice(body, view).into_contiguous();
    *view = RequestBody::parse(&edited).map_err(|e| ApiError::new(ErrorCode::InvalidJson, e.to_string()))?;
    *body = edited;
    Ok(())
}

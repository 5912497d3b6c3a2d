//! Shared wire types of the admin API: closed sets as schema enums, and small conversions.
//!
//! Each `…Name` enum is the OpenAPI face of a core closed set: the same variants with the same
//! wire strings as the core type's `as_str` (pinned per variant by `tests/admin/wire_names.rs`).
//! The conversions match exhaustively, so a variant added on either side fails to compile here.

use gateway_core::domain::{ProviderKind, RequestStatus, RoutingScope, SendState, ServiceTierPolicy, Transport};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::admin::envelope::ApiFailure;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    Openai,
    Xai,
}

impl From<Provider> for ProviderKind {
    fn from(p: Provider) -> Self {
        match p {
            Provider::Openai => ProviderKind::Openai,
            Provider::Xai => ProviderKind::Xai,
        }
    }
}

impl From<ProviderKind> for Provider {
    fn from(p: ProviderKind) -> Self {
        match p {
            ProviderKind::Openai => Provider::Openai,
            ProviderKind::Xai => Provider::Xai,
        }
    }
}

/// What the gateway does with a request's `service_tier`: `allow` passes what the client sent,
/// `deny` refuses a request asking for a tier other than `auto`/`default` (400), `force_priority`
/// sends `priority` upstream whatever the client sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServiceTierPolicyName {
    Allow,
    Deny,
    ForcePriority,
}

impl From<ServiceTierPolicyName> for ServiceTierPolicy {
    fn from(p: ServiceTierPolicyName) -> Self {
        match p {
            ServiceTierPolicyName::Allow => ServiceTierPolicy::Allow,
            ServiceTierPolicyName::Deny => ServiceTierPolicy::Deny,
            ServiceTierPolicyName::ForcePriority => ServiceTierPolicy::ForcePriority,
        }
    }
}

impl From<ServiceTierPolicy> for ServiceTierPolicyName {
    fn from(p: ServiceTierPolicy) -> Self {
        match p {
            ServiceTierPolicy::Allow => ServiceTierPolicyName::Allow,
            ServiceTierPolicy::Deny => ServiceTierPolicyName::Deny,
            ServiceTierPolicy::ForcePriority => ServiceTierPolicyName::ForcePriority,
        }
    }
}

/// The derived account state (never stored; resolved from facts + Redis cooldowns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AccountStateName {
    Normal,
    QuotaExhausted,
    RateLimited,
    Disabled,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RequestStatusName {
    Running,
    Completed,
    Failed,
    Incomplete,
    Cancelled,
}

impl From<RequestStatusName> for RequestStatus {
    fn from(s: RequestStatusName) -> Self {
        match s {
            RequestStatusName::Running => RequestStatus::Running,
            RequestStatusName::Completed => RequestStatus::Completed,
            RequestStatusName::Failed => RequestStatus::Failed,
            RequestStatusName::Incomplete => RequestStatus::Incomplete,
            RequestStatusName::Cancelled => RequestStatus::Cancelled,
        }
    }
}

impl From<RequestStatus> for RequestStatusName {
    fn from(s: RequestStatus) -> Self {
        match s {
            RequestStatus::Running => RequestStatusName::Running,
            RequestStatus::Completed => RequestStatusName::Completed,
            RequestStatus::Failed => RequestStatusName::Failed,
            RequestStatus::Incomplete => RequestStatusName::Incomplete,
            RequestStatus::Cancelled => RequestStatusName::Cancelled,
        }
    }
}

/// How far a request (or an attempt) got towards upstream: `not_sent < ambiguous < sent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SendStateName {
    NotSent,
    Ambiguous,
    Sent,
}

impl From<SendState> for SendStateName {
    fn from(s: SendState) -> Self {
        match s {
            SendState::NotSent => SendStateName::NotSent,
            SendState::Ambiguous => SendStateName::Ambiguous,
            SendState::Sent => SendStateName::Sent,
        }
    }
}

/// Which kind of scope the request's key had when it started: every account, or its groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RoutingScopeName {
    All,
    Groups,
}

impl From<RoutingScope> for RoutingScopeName {
    fn from(s: RoutingScope) -> Self {
        match s {
            RoutingScope::All => RoutingScopeName::All,
            RoutingScope::Groups => RoutingScopeName::Groups,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TransportName {
    Http,
    Websocket,
}

impl From<TransportName> for Transport {
    fn from(t: TransportName) -> Self {
        match t {
            TransportName::Http => Transport::Http,
            TransportName::Websocket => Transport::Websocket,
        }
    }
}

impl From<Transport> for TransportName {
    fn from(t: Transport) -> Self {
        match t {
            Transport::Http => TransportName::Http,
            Transport::Websocket => TransportName::Websocket,
        }
    }
}

/// RFC 3339 text → time, as a field error.
pub fn parse_time(field: &str, text: Option<&str>) -> Result<Option<OffsetDateTime>, ApiFailure> {
    text.map(|t| {
        OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339)
            .map_err(|_| ApiFailure::invalid(field, "must be an RFC 3339 date-time, e.g. 2025-01-31T12:00:00Z"))
    })
    .transpose()
}

/// `Some(Some(v))` when the field is present with a value, `Some(None)` when present as
/// `null`, `None` when absent (PATCH semantics).
pub fn double_option<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

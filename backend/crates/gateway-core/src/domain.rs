//! The nouns of the gateway, shared by the engine, the admin use cases and the adapters.

pub mod account;
pub mod attempt;
pub mod client_key;
pub mod closed_set;
pub mod credential;
pub mod egress_proxy;
pub mod group;
pub mod ids;
pub mod model_request;
pub mod money;
pub mod ops_event;
pub mod provider;
pub mod quota_window;
pub mod replica;
pub mod request_outcome;
pub mod request_usage;
pub mod revision;
pub mod runtime_settings;
pub mod send_state;

pub use account::{
    AccountProfile, AccountRecord, CredentialFacts, CredentialState, ProviderData, QuotaFacts, QuotaState,
    SchedulingFacts, Weight,
};
pub use attempt::{Attempt, AttemptOutcome};
pub use client_key::{ClientKeyHash, ClientKeyLimits, ClientKeyRecord, ClientKeySecret, KeyScope, ServiceTierPolicy};
pub use credential::{CredentialDocument, CredentialSlot, StoredCredential};
pub use egress_proxy::EgressProxy;
pub use group::AccountGroup;
pub use ids::{AccountId, ClientKeyId, GroupId, RequestId};
pub use model_request::{
    GroupRef, ModelRequestRecord, RequestStart, RequestStatus, RequestUpdate, RoutingScope, RoutingSnapshot, Transport,
};
pub use money::NanoUsd;
pub use ops_event::{OpsEvent, OpsLevel};
pub use provider::ProviderKind;
pub use quota_window::QuotaWindow;
pub use replica::{BootId, ReplicaName, Runner};
pub use request_outcome::RequestOutcome;
pub use request_usage::{LatencySplits, TokenUsage};
pub use revision::{ConfigRevision, CredentialRevision, QuotaRevision};
pub use runtime_settings::{RotationStrategy, RuntimeSettings};
pub use send_state::SendState;

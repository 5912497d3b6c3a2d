//! The nouns of the gateway, shared by the engine, the admin use cases and the adapters.

pub mod ids;
pub mod provider;

pub use ids::{AccountId, ClientKeyId, GroupId, RequestId};
pub use provider::ProviderKind;

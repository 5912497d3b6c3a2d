//! The write models of admin mutations.

use time::OffsetDateTime;

use gateway_core::domain::{
    AccountId, AccountProfile, ClientKeyHash, ClientKeyLimits, CredentialDocument, CredentialFacts, CredentialRevision,
    ProviderData, ProviderKind, ServiceTierPolicy,
};

/// A credential import (auth.json, refresh token, OAuth completion). Upserts by
/// `(provider, external_account_id)`: an existing account gets the new credential, profile and
/// provider data, and keeps its scheduling facts, groups and quota facts.
#[derive(Debug, Clone)]
pub struct AccountImport {
    pub provider: ProviderKind,
    pub external_account_id: String,
    pub profile: AccountProfile,
    pub document: CredentialDocument,
    pub facts: CredentialFacts,
    pub provider_data: ProviderData,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportOutcome {
    pub account_id: AccountId,
    /// `false` when an existing account was updated.
    pub created: bool,
    pub credential_revision: CredentialRevision,
}

/// Name, description and enabled flag of a group (create and update).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupChanges {
    pub name: String,
    pub description: String,
    pub enabled: bool,
}

/// A client key to create; the plaintext never reaches the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewClientKey {
    pub key_hash: ClientKeyHash,
    pub key_prefix: String,
    pub changes: ClientKeyChanges,
}

/// The editable facts of a client key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientKeyChanges {
    pub name: String,
    pub enabled: bool,
    pub expires_at: Option<OffsetDateTime>,
    pub limits: ClientKeyLimits,
    /// `None` allows every model; `Some` must not be empty.
    pub allowed_models: Option<Vec<String>>,
    pub service_tier_policy: ServiceTierPolicy,
}

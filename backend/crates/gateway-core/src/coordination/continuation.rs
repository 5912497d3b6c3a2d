//! Continuation pins: which client key, scope, provider and account produced a response id, so
//! a `previous_response_id` can only continue where it began and only for its owner.
//!
//! A pin is written before the response id can reach the client. Reads check ownership and
//! fail closed: another key's id is [`PinLookup::NotYours`], which callers treat like not found.

use std::time::Duration;

use async_trait::async_trait;

use super::CoordinationError;
use crate::domain::{AccountId, ClientKeyId, GroupId, ProviderKind};

/// The account scope frozen when the response was produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinScope {
    /// The key had no groups.
    All,
    /// The key was restricted to these groups (sorted, deduplicated by the writer).
    Groups(Vec<GroupId>),
}

/// What a response id is bound to. Ids are opaque bytes, no format assumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContinuationPin {
    pub client_key: ClientKeyId,
    pub scope: PinScope,
    pub provider: ProviderKind,
    pub account: AccountId,
    pub upstream_response_id: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinWrite {
    /// Written (new, or replacing a pin of the same key).
    Written,
    /// A pin of another client key holds this id; nothing was written.
    Conflict,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinLookup {
    Found(ContinuationPin),
    NotFound,
    /// The id belongs to another client key: treat like [`PinLookup::NotFound`], never reveal it.
    NotYours,
}

#[async_trait]
pub trait ContinuationPins: Send + Sync {
    async fn pin(
        &self,
        response_id: &[u8],
        pin: &ContinuationPin,
        ttl: Duration,
    ) -> Result<PinWrite, CoordinationError>;

    async fn lookup(&self, response_id: &[u8], client_key: ClientKeyId) -> Result<PinLookup, CoordinationError>;

    /// Removes the pin if it belongs to `client_key`; `true` if one was removed.
    async fn unpin(&self, response_id: &[u8], client_key: ClientKeyId) -> Result<bool, CoordinationError>;
}

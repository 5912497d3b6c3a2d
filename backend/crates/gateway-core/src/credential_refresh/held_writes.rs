//! Rotated credentials the database has not taken yet.
//!
//! After the upstream rotated a refresh token, the new pair is the only one that works. If the
//! write fails (database down), the pair is held here, with the refresh lease that keeps other
//! replicas from spending the old token, and the write is retried until it succeeds. While a
//! pair is held no refresh of that account is attempted.

use std::collections::HashMap;
use std::sync::Mutex;

use time::OffsetDateTime;

use crate::coordination::Lease;
use crate::domain::{AccountId, CredentialRevision};
use crate::ports::CredentialWrite;

/// One pending write.
#[derive(Debug, Clone)]
pub struct HeldWrite {
    /// The revision the spent credential was read at: the CAS of the retried write.
    pub expected: CredentialRevision,
    pub write: CredentialWrite,
    /// The refresh lease, renewed at every retry.
    pub lease: Lease,
    pub since: OffsetDateTime,
}

#[derive(Default)]
pub struct HeldWrites {
    entries: Mutex<HashMap<AccountId, HeldWrite>>,
}

impl HeldWrites {
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<AccountId, HeldWrite>> {
        self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn hold(&self, account: AccountId, write: HeldWrite) {
        self.entries().insert(account, write);
    }

    pub fn get(&self, account: AccountId) -> Option<HeldWrite> {
        self.entries().get(&account).cloned()
    }

    pub fn contains(&self, account: AccountId) -> bool {
        self.entries().contains_key(&account)
    }

    pub fn remove(&self, account: AccountId) {
        self.entries().remove(&account);
    }

    /// The accounts with a pending write.
    pub fn accounts(&self) -> Vec<AccountId> {
        self.entries().keys().copied().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }
}

//! A replica-local memory of which account each session was last bound to. It only decides
//! which account is offered first to the acquire step; the binding itself lives in the
//! coordination store, which stays the authority.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::coordination::AffinityKey;
use crate::domain::AccountId;

/// Sessions remembered before the memory starts over.
const CAPACITY: usize = 100_000;

#[derive(Default)]
pub struct AffinityHints {
    hints: Mutex<HashMap<[u8; 32], AccountId>>,
}

impl AffinityHints {
    pub fn get(&self, key: &AffinityKey) -> Option<AccountId> {
        self.hints.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&key.0).copied()
    }

    pub fn remember(&self, key: AffinityKey, account: AccountId) {
        let mut hints = self.hints.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if hints.len() >= CAPACITY && !hints.contains_key(&key.0) {
            hints.clear();
        }
        hints.insert(key.0, account);
    }
}

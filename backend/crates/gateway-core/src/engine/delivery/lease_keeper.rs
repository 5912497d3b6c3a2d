//! The lease keeper: holds the request's slots from the accepted attempt to the end of the
//! delivery. While it holds them the replica's heartbeat renews them (the guard is registered
//! in `HeldSlots`; nothing is renewed per stream); it releases them exactly once, off the
//! client's path, with the request's spend.

use crate::coordination::{LeaseGuard, Spend};

pub(super) struct LeaseKeeper {
    guard: Option<LeaseGuard>,
}

impl LeaseKeeper {
    pub(super) fn new(guard: LeaseGuard) -> Self {
        Self { guard: Some(guard) }
    }

    /// Releases in the background; a second call does nothing.
    pub(super) fn release(&mut self, spend: Option<Spend>) {
        if let Some(guard) = self.guard.take() {
            guard.release_later(None, spend);
        }
    }
}

//! The per-request send-state watermark `not_sent < ambiguous < sent` (invariant 3).

use crate::closed_set;

closed_set!(
    /// How far a request got towards upstream. Only ever rises; `ambiguous` is never replayed.
    SendState as "send state" {
        /// Nothing left the process: safe to replay elsewhere.
        NotSent = "not_sent",
        /// The outcome of a transport write is unclear: treat as possibly sent.
        Ambiguous = "ambiguous",
        Sent = "sent",
    }
);

impl SendState {
    /// The watermark after observing `other`: the higher of the two.
    pub fn raise(self, other: SendState) -> SendState {
        self.max(other)
    }
}

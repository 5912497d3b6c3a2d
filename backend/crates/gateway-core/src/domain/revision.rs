//! Revisions: monotone counters that fence concurrent writers.
//!
//! - `ConfigRevision` is global: every admin unit of work that changes the routing snapshot or
//!   the security configuration bumps it; replicas reconcile their snapshot against it.
//! - `CredentialRevision` is per account: every credential write is a compare-and-swap on it.
//! - `QuotaRevision` is per account: quota fact writes are fenced by it.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! revision {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl $name {
            /// The revision a successful write produces.
            pub const fn next(self) -> Self {
                Self(self.0 + 1)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

revision!(
    /// `runtime_settings.config_revision`.
    ConfigRevision
);
revision!(
    /// `provider_accounts.credential_revision`.
    CredentialRevision
);
revision!(
    /// `provider_accounts.quota_revision`.
    QuotaRevision
);

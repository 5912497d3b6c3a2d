//! Administrator identity (`admin_users`).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A row of `admin_users`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AdminUserId(pub i64);

impl fmt::Display for AdminUserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

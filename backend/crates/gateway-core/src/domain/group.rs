//! Provider-neutral account groups.

use time::OffsetDateTime;

use crate::domain::ids::{AccountId, GroupId};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountGroup {
    pub id: GroupId,
    pub name: String,
    pub description: String,
    pub enabled: bool,
    /// Members, ascending.
    pub account_ids: Vec<AccountId>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

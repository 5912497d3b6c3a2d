//! Provider-neutral account groups.

use time::OffsetDateTime;

use crate::domain::egress_proxy::EgressProxy;
use crate::domain::ids::{AccountId, GroupId};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountGroup {
    pub id: GroupId,
    pub name: String,
    pub description: String,
    pub enabled: bool,
    /// Members, ascending.
    pub account_ids: Vec<AccountId>,
    /// The egress proxy of members without their own (decision 0241).
    pub egress_proxy: Option<EgressProxy>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

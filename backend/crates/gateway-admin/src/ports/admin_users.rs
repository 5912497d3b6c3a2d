//! Reading administrators (writes go through the unit of work, except the last-login stamp,
//! which is an observation and does not bump `config_revision`).

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_core::ports::StorageError;

use crate::admin_user::{AdminUserId, AdminUserRecord, TotpSecret};

#[async_trait]
pub trait AdminUsers: Send + Sync {
    async fn count_admin_users(&self) -> Result<u64, StorageError>;
    /// Case-insensitive.
    async fn find_admin_by_username(&self, username: &str) -> Result<Option<AdminUserRecord>, StorageError>;
    async fn find_admin_by_api_key(&self, hash: &[u8; 32]) -> Result<Option<AdminUserRecord>, StorageError>;
    async fn get_admin_user(&self, id: AdminUserId) -> Result<AdminUserRecord, StorageError>;
    async fn list_admin_users(&self) -> Result<Vec<AdminUserRecord>, StorageError>;
    /// The user's TOTP secret (pending or enabled), opened; `None` when there is none.
    async fn admin_totp_secret(&self, id: AdminUserId) -> Result<Option<TotpSecret>, StorageError>;
    async fn record_admin_login(&self, id: AdminUserId, at: OffsetDateTime) -> Result<(), StorageError>;
}

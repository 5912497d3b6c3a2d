//! The entry point of admin mutations.

use async_trait::async_trait;

use gateway_core::ports::StorageError;

use crate::ports::admin_transaction::AdminTransaction;

#[async_trait]
pub trait UnitOfWork: Send + Sync {
    /// Opens a transaction for one admin mutation.
    async fn begin(&self) -> Result<Box<dyn AdminTransaction>, StorageError>;
}

//! Reading client keys (never their plaintext: only hash and display prefix are stored).

use async_trait::async_trait;

use gateway_core::domain::{ClientKeyId, ClientKeyRecord};
use gateway_core::ports::StorageError;

#[async_trait]
pub trait ClientKeyDirectory: Send + Sync {
    /// Every key with limits and scope, ascending id.
    async fn list_client_keys(&self) -> Result<Vec<ClientKeyRecord>, StorageError>;
    async fn get_client_key(&self, id: ClientKeyId) -> Result<ClientKeyRecord, StorageError>;
}

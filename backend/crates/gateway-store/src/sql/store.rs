//! [`SqlStore`]: the SQL store over one database — its pools and the keyring. `PgStore` and
//! `SqliteStore` are its two instances; every port both implement is implemented once, on
//! `SqlStore<D: Dialect>`.

use std::sync::Arc;

use sqlx::{Database, Pool};

use gateway_core::ports::StorageError;

use crate::crypto::Keyring;

/// The SQL store. Cheap to clone (pools and keyring are shared). PostgreSQL reads and writes on
/// one pool; SQLite writes on a single connection and reads on read-only ones.
pub struct SqlStore<D: Database> {
    pub(crate) reader: Pool<D>,
    pub(crate) writer: Pool<D>,
    pub(crate) keyring: Option<Arc<Keyring>>,
}

impl<D: Database> Clone for SqlStore<D> {
    fn clone(&self) -> Self {
        Self { reader: self.reader.clone(), writer: self.writer.clone(), keyring: self.keyring.clone() }
    }
}

impl<D: Database> std::fmt::Debug for SqlStore<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlStore")
            .field("database", &D::NAME)
            .field("readers", &self.reader.size())
            .field("keyring", &self.keyring)
            .finish()
    }
}

impl<D: Database> SqlStore<D> {
    pub(crate) fn with_pools(reader: Pool<D>, writer: Pool<D>) -> Self {
        Self { reader, writer, keyring: None }
    }

    /// The keyring that seals and opens credentials and backup secrets.
    pub fn with_keyring(mut self, keyring: Keyring) -> Self {
        self.keyring = Some(Arc::new(keyring));
        self
    }

    /// The pool reads go through.
    pub fn reader(&self) -> &Pool<D> {
        &self.reader
    }

    /// The pool writes go through.
    pub fn writer(&self) -> &Pool<D> {
        &self.writer
    }

    pub(crate) fn keyring(&self) -> Result<&Keyring, StorageError> {
        self.keyring.as_deref().ok_or_else(missing_key)
    }
}

/// The error of a call that needs the keyring when no master key is configured.
pub(crate) fn missing_key() -> StorageError {
    StorageError::Misconfigured("secrets.master_key is not configured".to_owned())
}

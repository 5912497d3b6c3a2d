//! The values the settings mutations bind, for both dialects.

use secrecy::ExposeSecret;

use gateway_admin::backup::SecretsChange;
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::sealing::{BACKUP_SECRETS_CONTEXT, crypto_error};
use crate::sql_transaction::missing_key;

/// The sealed columns a backup-settings update writes: `replace = false` keeps the stored secrets.
pub(crate) struct SecretsColumns {
    pub(crate) replace: bool,
    pub(crate) ciphertext: Option<Vec<u8>>,
    pub(crate) key_id: Option<String>,
}

pub(crate) fn secrets_columns(
    keyring: Option<&Keyring>,
    change: &SecretsChange,
) -> Result<SecretsColumns, StorageError> {
    Ok(match change {
        SecretsChange::Keep => SecretsColumns { replace: false, ciphertext: None, key_id: None },
        SecretsChange::Clear => SecretsColumns { replace: true, ciphertext: None, key_id: None },
        SecretsChange::Replace(secrets) => {
            let keyring = keyring.ok_or_else(missing_key)?;
            let json = secrets.to_sealable_json();
            let sealed = keyring.seal(json.expose_secret().as_bytes(), BACKUP_SECRETS_CONTEXT).map_err(crypto_error)?;
            SecretsColumns { replace: true, ciphertext: Some(sealed.ciphertext), key_id: Some(sealed.key_id) }
        }
    })
}

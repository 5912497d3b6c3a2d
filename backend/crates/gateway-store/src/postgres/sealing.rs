//! Which secrets are sealed and under which context (bound into the AEAD associated data, so a
//! ciphertext only opens in the row and column it was written for).

use gateway_admin::admin_user::TotpSecret;
use gateway_core::coordination::affinity::hex;
use gateway_core::domain::{CredentialDocument, CredentialSlot, ProviderKind};
use gateway_core::ports::StorageError;
use secrecy::ExposeSecret;

use crate::crypto::{CryptoError, Keyring, SealedSecret};

/// `provider_accounts.credential_ciphertext`: bound to the account's stable identity.
pub(crate) fn credential_context(provider: ProviderKind, external_account_id: &str) -> String {
    format!("provider_accounts.credential:{provider}:{external_account_id}")
}

/// `backup_settings.credentials_ciphertext` (a singleton).
pub(crate) const BACKUP_SECRETS_CONTEXT: &str = "backup_settings.credentials";

/// `alert_webhooks.secret_ciphertext`.
pub(crate) const ALERT_WEBHOOK_SECRET_CONTEXT: &str = "alert_webhooks.secret";

/// `admin_users.totp_secret_ciphertext`.
pub(crate) fn totp_context(admin_user_id: i64) -> String {
    format!("admin_users.totp:{admin_user_id}")
}

pub(crate) fn seal_credential(
    keyring: &Keyring,
    provider: ProviderKind,
    external_account_id: &str,
    document: &CredentialDocument,
) -> Result<SealedSecret, StorageError> {
    keyring
        .seal(document.expose_json().as_bytes(), &credential_context(provider, external_account_id))
        .map_err(crypto_error)
}

/// Opens a stored credential; a ciphertext that does not open yields `Unreadable` (the account
/// is then unusable) instead of failing the whole load.
pub(crate) fn open_credential(
    keyring: &Keyring,
    provider: ProviderKind,
    external_account_id: &str,
    sealed: &SealedSecret,
) -> CredentialSlot {
    match keyring.open(sealed, &credential_context(provider, external_account_id)) {
        Ok(text) => CredentialSlot::Available(CredentialDocument::new(text.expose_secret().to_owned())),
        Err(error) => {
            tracing::warn!(provider = %provider, key_id = %sealed.key_id, %error, "stored credential cannot be opened");
            CredentialSlot::Unreadable { key_id: sealed.key_id.clone() }
        }
    }
}

/// Seals a TOTP secret (its bytes as hex text) for `admin_users.totp_secret_ciphertext`.
pub(crate) fn seal_totp(
    keyring: &Keyring,
    admin_user_id: i64,
    secret: &TotpSecret,
) -> Result<SealedSecret, StorageError> {
    keyring.seal(hex(secret.expose()).as_bytes(), &totp_context(admin_user_id)).map_err(crypto_error)
}

/// Opens a stored TOTP secret; a ciphertext that does not open is an error (the admin cannot
/// log in until the key is configured again), never an empty secret.
pub(crate) fn open_totp(
    keyring: &Keyring,
    admin_user_id: i64,
    sealed: &SealedSecret,
) -> Result<TotpSecret, StorageError> {
    let text = keyring.open(sealed, &totp_context(admin_user_id)).map_err(crypto_error)?;
    let text = text.expose_secret();
    let bytes: Option<Vec<u8>> = (text.len() % 2 == 0)
        .then(|| {
            (0..text.len())
                .step_by(2)
                .map(|i| text.get(i..i + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok()))
                .collect()
        })
        .flatten();
    bytes.map(TotpSecret::new).ok_or_else(|| StorageError::Corrupt("stored TOTP secret is malformed".to_owned()))
}

pub(crate) fn crypto_error(error: CryptoError) -> StorageError {
    match error {
        CryptoError::UnknownKey { .. } => StorageError::Misconfigured(error.to_string()),
        other => StorageError::Corrupt(other.to_string()),
    }
}

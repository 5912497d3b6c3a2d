//! Mapping the credential columns of `provider_accounts`, for both dialects, and the revision
//! mismatch a failed compare-and-swap reports.

use gateway_core::domain::{AccountId, CredentialRevision, ProviderKind, StoredCredential};
use gateway_core::ports::{RefreshDue, StorageError};

use crate::crypto::{Keyring, SealedSecret};
use crate::postgres::column_values::closed;
use crate::postgres::sealing::open_credential;
use crate::row_columns::RowColumns;

/// What sealing a credential binds it to, and the revision a CAS compares.
pub(crate) struct AccountIdentity {
    pub(crate) provider: ProviderKind,
    pub(crate) external_account_id: String,
    pub(crate) revision: CredentialRevision,
}

fn provider(row: &impl RowColumns) -> Result<ProviderKind, StorageError> {
    closed(row.col::<&str>("provider")?, "provider_accounts.provider")
}

/// `provider, external_account_id, credential_revision`.
pub(crate) fn identity_from_row(row: &impl RowColumns) -> Result<AccountIdentity, StorageError> {
    Ok(AccountIdentity {
        provider: provider(row)?,
        external_account_id: row.col("external_account_id")?,
        revision: CredentialRevision(row.col("credential_revision")?),
    })
}

/// The identity columns plus `credential_key_id, credential_ciphertext`, opened under `keyring`.
pub(crate) fn credential_from_row(row: &impl RowColumns, keyring: &Keyring) -> Result<StoredCredential, StorageError> {
    let who = identity_from_row(row)?;
    let sealed = SealedSecret { key_id: row.col("credential_key_id")?, ciphertext: row.col("credential_ciphertext")? };
    Ok(StoredCredential {
        revision: who.revision,
        slot: open_credential(keyring, who.provider, &who.external_account_id, &sealed),
    })
}

/// `id, provider, credential_revision, next_refresh_at`.
pub(crate) fn refresh_due_from_row(row: &impl RowColumns) -> Result<RefreshDue, StorageError> {
    Ok(RefreshDue {
        account_id: AccountId(row.col("id")?),
        provider: provider(row)?,
        credential_revision: CredentialRevision(row.col("credential_revision")?),
        next_refresh_at: row.ts("next_refresh_at")?,
    })
}

pub(crate) fn mismatch(account: AccountId, expected: CredentialRevision, actual: CredentialRevision) -> StorageError {
    StorageError::RevisionMismatch {
        entity: "account credential",
        id: account.to_string(),
        expected: expected.0,
        actual: actual.0,
    }
}

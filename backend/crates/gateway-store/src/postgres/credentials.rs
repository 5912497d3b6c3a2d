//! `CredentialStore` (its one body for both dialects: `sql_shared::credential_store`): credential
//! reads and compare-and-swap writes on `credential_revision`.
//! Nothing here touches scheduling facts (enabled, cap, weight, groups).

use sqlx::PgConnection;

use gateway_core::domain::{AccountId, CredentialFacts, CredentialRevision};
use gateway_core::ports::{CredentialWrite, StorageError};

use crate::crypto::Keyring;
use crate::postgres::PgStore;
use crate::postgres::column_values::{int4, timestamp as ts};
use crate::postgres::error_mapping::storage_error;
use crate::postgres::sealing::seal_credential;
use crate::rows::credentials::{AccountIdentity, identity_from_row, mismatch};

async fn identity(conn: &mut PgConnection, account: AccountId) -> Result<AccountIdentity, StorageError> {
    let row =
        sqlx::query("SELECT provider, external_account_id, credential_revision FROM provider_accounts WHERE id = $1")
            .bind(account.0)
            .fetch_optional(&mut *conn)
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("account", account))?;
    identity_from_row(&row)
}

/// The CAS write shared by the refresh path and the admin unit of work.
pub(crate) async fn write_credential_cas(
    conn: &mut PgConnection,
    keyring: &Keyring,
    account: AccountId,
    expected: CredentialRevision,
    write: &CredentialWrite,
) -> Result<CredentialRevision, StorageError> {
    let who = identity(conn, account).await?;
    if who.revision != expected {
        return Err(mismatch(account, expected, who.revision));
    }
    let sealed = seal_credential(keyring, who.provider, &who.external_account_id, &write.document)?;
    let facts = &write.facts;
    let profile = write.profile.as_ref();
    let revision: Option<i64> = sqlx::query_scalar(
        "UPDATE provider_accounts SET credential_ciphertext = $3, credential_key_id = $4, \
         credential_revision = credential_revision + 1, credential_state = $5, credential_reason = $6, \
         access_token_expires_at = $7, next_refresh_at = $8, refresh_failure_count = $9, \
         email = CASE WHEN $10 THEN $11 ELSE email END, plan_type = CASE WHEN $10 THEN $12 ELSE plan_type END, \
         updated_at = now() WHERE id = $1 AND credential_revision = $2 RETURNING credential_revision",
    )
    .bind(account.0)
    .bind(expected.0)
    .bind(&sealed.ciphertext)
    .bind(&sealed.key_id)
    .bind(facts.state.as_str())
    .bind(facts.reason.as_deref())
    .bind(facts.access_token_expires_at)
    .bind(facts.next_refresh_at)
    .bind(int4(facts.refresh_failure_count, "provider_accounts.refresh_failure_count")?)
    .bind(profile.is_some())
    .bind(profile.and_then(|p| p.email.as_deref()))
    .bind(profile.and_then(|p| p.plan_type.as_deref()))
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage_error)?;
    match revision {
        Some(revision) => Ok(CredentialRevision(revision)),
        None => Err(mismatch(account, expected, identity(conn, account).await?.revision)),
    }
}

/// The facts-only write, fenced by the revision (`write_credential_facts`).
async fn write_facts(
    store: &PgStore,
    account: AccountId,
    expected: CredentialRevision,
    facts: &CredentialFacts,
) -> Result<(), StorageError> {
    let updated = sqlx::query(
        "UPDATE provider_accounts SET credential_state = $3, credential_reason = $4, \
         access_token_expires_at = $5, next_refresh_at = $6, refresh_failure_count = $7, updated_at = now() \
         WHERE id = $1 AND credential_revision = $2",
    )
    .bind(account.0)
    .bind(expected.0)
    .bind(facts.state.as_str())
    .bind(facts.reason.as_deref())
    .bind(facts.access_token_expires_at)
    .bind(facts.next_refresh_at)
    .bind(int4(facts.refresh_failure_count, "provider_accounts.refresh_failure_count")?)
    .execute(store.pool())
    .await
    .map_err(storage_error)?;
    if updated.rows_affected() == 1 {
        return Ok(());
    }
    let mut conn = store.pool().acquire().await.map_err(storage_error)?;
    Err(mismatch(account, expected, identity(&mut conn, account).await?.revision))
}

crate::sql_shared::credential_store::sql_credential_store!(PgStore, pool, pool);

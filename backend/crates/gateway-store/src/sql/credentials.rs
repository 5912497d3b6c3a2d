//! [`CredentialStore`]: credential reads and compare-and-swap writes on `credential_revision`
//! (the refresh path, and the admin unit of work's replacement). Nothing here touches scheduling
//! facts (enabled, cap, weight, groups). Writes hold one writer connection for the identity read
//! and the update (in SQLite the single writer, so they cannot interleave with another write; in
//! PostgreSQL the `WHERE credential_revision = $2` fence decides). Rows are mapped by
//! `rows::credentials`.

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_core::domain::{AccountId, CredentialFacts, CredentialRevision, StoredCredential};
use gateway_core::ports::{CredentialStore, CredentialWrite, RefreshDue, StorageError};

use crate::crypto::Keyring;
use crate::postgres::column_values::{int4, int8};
use crate::postgres::sealing::seal_credential;
use crate::row_columns::RowColumns;
use crate::rows::credentials::{
    AccountIdentity, credential_from_row, identity_from_row, mismatch, refresh_due_from_row,
};
use crate::sql::store::SqlStore;
use crate::sql::{Dialect, Sql, Statement};

const READ: Sql = Sql::same(
    "SELECT provider, external_account_id, credential_revision, credential_key_id, credential_ciphertext \
     FROM provider_accounts WHERE id = $1",
);
const IDENTITY: Sql =
    Sql::same("SELECT provider, external_account_id, credential_revision FROM provider_accounts WHERE id = $1");
const WRITE: Sql = Sql::same(
    "UPDATE provider_accounts SET credential_ciphertext = $3, credential_key_id = $4, \
     credential_revision = credential_revision + 1, credential_state = $5, credential_reason = $6, \
     access_token_expires_at = $7, next_refresh_at = $8, refresh_failure_count = $9, \
     email = CASE WHEN $10 THEN $11 ELSE email END, plan_type = CASE WHEN $10 THEN $12 ELSE plan_type END, \
     updated_at = $13 WHERE id = $1 AND credential_revision = $2 RETURNING credential_revision",
);
const WRITE_FACTS: Sql = Sql::same(
    "UPDATE provider_accounts SET credential_state = $3, credential_reason = $4, \
     access_token_expires_at = $5, next_refresh_at = $6, refresh_failure_count = $7, updated_at = $8 \
     WHERE id = $1 AND credential_revision = $2",
);
const DUE: Sql = Sql::same(
    "SELECT id, provider, credential_revision, next_refresh_at FROM provider_accounts \
     WHERE next_refresh_at <= $1 ORDER BY next_refresh_at, id LIMIT $2",
);

#[async_trait]
impl<D: Dialect> CredentialStore for SqlStore<D> {
    async fn read_credential(&self, account: AccountId) -> Result<StoredCredential, StorageError> {
        let keyring = self.keyring()?;
        let row = Statement::<D>::new(&READ)
            .bind(account.0)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| StorageError::not_found("account", account))?;
        credential_from_row(&row, keyring)
    }

    async fn write_credential(
        &self,
        account: AccountId,
        expected: CredentialRevision,
        write: CredentialWrite,
    ) -> Result<CredentialRevision, StorageError> {
        let keyring = self.keyring()?;
        let mut conn = self.writer().acquire().await.map_err(D::storage_error)?;
        write_credential_cas::<D>(&mut conn, keyring, account, expected, &write).await
    }

    async fn write_credential_facts(
        &self,
        account: AccountId,
        expected: CredentialRevision,
        facts: CredentialFacts,
    ) -> Result<(), StorageError> {
        let mut conn = self.writer().acquire().await.map_err(D::storage_error)?;
        let statement = Statement::<D>::new(&WRITE_FACTS).bind(account.0).bind(expected.0);
        let touched = bind_facts(statement, &facts)?.bind(OffsetDateTime::now_utc()).execute(&mut *conn).await?;
        if touched == 1 {
            return Ok(());
        }
        Err(mismatch(account, expected, identity::<D>(&mut conn, account).await?.revision))
    }

    async fn due_for_refresh(&self, now: OffsetDateTime, limit: u32) -> Result<Vec<RefreshDue>, StorageError> {
        let rows =
            Statement::<D>::new(&DUE).bind(now).bind(int8(u64::from(limit), "limit")?).fetch_all(self.reader()).await?;
        rows.iter().map(refresh_due_from_row).collect()
    }
}

async fn identity<D: Dialect>(conn: &mut D::Connection, account: AccountId) -> Result<AccountIdentity, StorageError> {
    let row = Statement::<D>::new(&IDENTITY)
        .bind(account.0)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| StorageError::not_found("account", account))?;
    identity_from_row(&row)
}

/// The CAS write shared by the refresh path and the admin unit of work.
pub(crate) async fn write_credential_cas<D: Dialect>(
    conn: &mut D::Connection,
    keyring: &Keyring,
    account: AccountId,
    expected: CredentialRevision,
    write: &CredentialWrite,
) -> Result<CredentialRevision, StorageError> {
    let who = identity::<D>(conn, account).await?;
    if who.revision != expected {
        return Err(mismatch(account, expected, who.revision));
    }
    let sealed = seal_credential(keyring, who.provider, &who.external_account_id, &write.document)?;
    let facts = &write.facts;
    let profile = write.profile.as_ref();
    let statement = Statement::<D>::new(&WRITE)
        .bind(account.0)
        .bind(expected.0)
        .bind(sealed.ciphertext.as_slice())
        .bind(&sealed.key_id);
    let row = bind_facts(statement, facts)?
        .bind(profile.is_some())
        .bind(profile.and_then(|p| p.email.as_deref()))
        .bind(profile.and_then(|p| p.plan_type.as_deref()))
        .bind(OffsetDateTime::now_utc())
        .fetch_optional(&mut *conn)
        .await?;
    match row {
        Some(row) => Ok(CredentialRevision(row.col("credential_revision")?)),
        None => Err(mismatch(account, expected, identity::<D>(conn, account).await?.revision)),
    }
}

/// Binds `credential_state, credential_reason, access_token_expires_at, next_refresh_at,
/// refresh_failure_count`, in that order (the import, the CAS write and the facts-only write).
pub(crate) fn bind_facts<D: Dialect>(
    statement: Statement<D>,
    facts: &CredentialFacts,
) -> Result<Statement<D>, StorageError> {
    Ok(statement
        .bind(facts.state.as_str())
        .bind(facts.reason.as_deref())
        .bind(facts.access_token_expires_at)
        .bind(facts.next_refresh_at)
        .bind(int4(facts.refresh_failure_count, "provider_accounts.refresh_failure_count")?))
}

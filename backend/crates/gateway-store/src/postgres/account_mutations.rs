//! Account mutations of the admin unit of work. Import is an upsert by
//! `(provider, external_account_id)` that writes credential, profile and provider facts only:
//! scheduling facts, groups and quota facts of an existing account are kept.

use sqlx::PgConnection;

use gateway_admin::ports::{AccountImport, ImportOutcome};
use gateway_core::domain::{AccountId, CredentialRevision, GroupId, SchedulingFacts};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::column_values::{ColumnRead, int4, opt_int4};
use crate::postgres::error_mapping::storage_error;
use crate::postgres::row_presence::{found, lock_row};
use crate::postgres::sealing::seal_credential;

pub(crate) async fn import_account(
    conn: &mut PgConnection,
    keyring: &Keyring,
    import: &AccountImport,
) -> Result<ImportOutcome, StorageError> {
    let sealed = seal_credential(keyring, import.provider, &import.external_account_id, &import.document)?;
    let facts = &import.facts;
    let row = sqlx::query(
        "INSERT INTO provider_accounts (provider, external_account_id, email, plan_type, credential_ciphertext, \
         credential_key_id, credential_state, credential_reason, access_token_expires_at, next_refresh_at, \
         refresh_failure_count, provider_data, provider_data_version) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
         ON CONFLICT (provider, external_account_id) DO UPDATE SET \
           email = COALESCE(EXCLUDED.email, provider_accounts.email), \
           plan_type = COALESCE(EXCLUDED.plan_type, provider_accounts.plan_type), \
           credential_ciphertext = EXCLUDED.credential_ciphertext, \
           credential_key_id = EXCLUDED.credential_key_id, \
           credential_revision = provider_accounts.credential_revision + 1, \
           credential_state = EXCLUDED.credential_state, \
           credential_reason = EXCLUDED.credential_reason, \
           access_token_expires_at = EXCLUDED.access_token_expires_at, \
           next_refresh_at = EXCLUDED.next_refresh_at, \
           refresh_failure_count = EXCLUDED.refresh_failure_count, \
           provider_data = EXCLUDED.provider_data, \
           provider_data_version = EXCLUDED.provider_data_version, \
           updated_at = now() \
         RETURNING id, credential_revision, (xmax = 0) AS created",
    )
    .bind(import.provider.as_str())
    .bind(&import.external_account_id)
    .bind(import.profile.email.as_deref())
    .bind(import.profile.plan_type.as_deref())
    .bind(&sealed.ciphertext)
    .bind(&sealed.key_id)
    .bind(facts.state.as_str())
    .bind(facts.reason.as_deref())
    .bind(facts.access_token_expires_at)
    .bind(facts.next_refresh_at)
    .bind(int4(facts.refresh_failure_count, "provider_accounts.refresh_failure_count")?)
    .bind(&import.provider_data.data)
    .bind(import.provider_data.version)
    .fetch_one(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(ImportOutcome {
        account_id: AccountId(row.col("id")?),
        created: row.col("created")?,
        credential_revision: CredentialRevision(row.col("credential_revision")?),
    })
}

pub(crate) async fn update_scheduling(
    conn: &mut PgConnection,
    account: AccountId,
    scheduling: &SchedulingFacts,
) -> Result<(), StorageError> {
    let done = sqlx::query(
        "UPDATE provider_accounts SET enabled = $2, concurrency_cap = $3, weight = $4, updated_at = now() \
         WHERE id = $1",
    )
    .bind(account.0)
    .bind(scheduling.enabled)
    .bind(opt_int4(scheduling.concurrency_cap, "provider_accounts.concurrency_cap")?)
    .bind(i16::from(scheduling.weight.get()))
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    found(done.rows_affected(), "account", account)
}

pub(crate) async fn replace_groups(
    conn: &mut PgConnection,
    account: AccountId,
    groups: &[GroupId],
) -> Result<(), StorageError> {
    lock_row(conn, "SELECT id FROM provider_accounts WHERE id = $1 FOR UPDATE", account.0, "account").await?;
    sqlx::query("DELETE FROM account_group_accounts WHERE account_id = $1")
        .bind(account.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    let ids: Vec<i64> = groups.iter().map(|g| g.0).collect();
    sqlx::query(
        "INSERT INTO account_group_accounts (group_id, account_id) \
         SELECT DISTINCT g, $1 FROM unnest($2::bigint[]) AS g",
    )
    .bind(account.0)
    .bind(&ids)
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(())
}

pub(crate) async fn delete_account(conn: &mut PgConnection, account: AccountId) -> Result<(), StorageError> {
    let done = sqlx::query("DELETE FROM provider_accounts WHERE id = $1")
        .bind(account.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    found(done.rows_affected(), "account", account)
}

//! Account mutations of the admin unit of work. Import is an upsert by
//! `(provider, external_account_id)` that writes credential, profile and provider facts only:
//! scheduling facts, groups and quota facts of an existing account are kept.

use sqlx::SqliteConnection;

use gateway_admin::ports::{AccountImport, ImportOutcome};
use gateway_core::domain::{AccountId, CredentialRevision, GroupId, SchedulingFacts};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::column_values::{int4, opt_int4};
use crate::postgres::row_presence::found;
use crate::postgres::sealing::seal_credential;
use crate::sqlite::error_mapping::storage_error;
use crate::sqlite::values::{SqliteColumns, json_text, now_micros, opt_micros};

pub(crate) async fn import_account(
    conn: &mut SqliteConnection,
    keyring: &Keyring,
    import: &AccountImport,
) -> Result<ImportOutcome, StorageError> {
    let sealed = seal_credential(keyring, import.provider, &import.external_account_id, &import.document)?;
    let facts = &import.facts;
    let existed: Option<i64> =
        sqlx::query_scalar("SELECT id FROM provider_accounts WHERE provider = $1 AND external_account_id = $2")
            .bind(import.provider.as_str())
            .bind(&import.external_account_id)
            .fetch_optional(&mut *conn)
            .await
            .map_err(storage_error)?;
    let row = sqlx::query(
        "INSERT INTO provider_accounts (provider, external_account_id, email, plan_type, credential_ciphertext, \
         credential_key_id, credential_state, credential_reason, access_token_expires_at, next_refresh_at, \
         refresh_failure_count, provider_data, provider_data_version, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) \
         ON CONFLICT (provider, external_account_id) DO UPDATE SET \
           email = COALESCE(excluded.email, provider_accounts.email), \
           plan_type = COALESCE(excluded.plan_type, provider_accounts.plan_type), \
           credential_ciphertext = excluded.credential_ciphertext, \
           credential_key_id = excluded.credential_key_id, \
           credential_revision = provider_accounts.credential_revision + 1, \
           credential_state = excluded.credential_state, \
           credential_reason = excluded.credential_reason, \
           access_token_expires_at = excluded.access_token_expires_at, \
           next_refresh_at = excluded.next_refresh_at, \
           refresh_failure_count = excluded.refresh_failure_count, \
           provider_data = excluded.provider_data, \
           provider_data_version = excluded.provider_data_version, \
           updated_at = excluded.updated_at \
         RETURNING id, credential_revision",
    )
    .bind(import.provider.as_str())
    .bind(&import.external_account_id)
    .bind(import.profile.email.as_deref())
    .bind(import.profile.plan_type.as_deref())
    .bind(&sealed.ciphertext)
    .bind(&sealed.key_id)
    .bind(facts.state.as_str())
    .bind(facts.reason.as_deref())
    .bind(opt_micros(facts.access_token_expires_at))
    .bind(opt_micros(facts.next_refresh_at))
    .bind(int4(facts.refresh_failure_count, "provider_accounts.refresh_failure_count")?)
    .bind(json_text(&import.provider_data.data))
    .bind(import.provider_data.version)
    .bind(now_micros())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(ImportOutcome {
        account_id: AccountId(row.col("id")?),
        created: existed.is_none(),
        credential_revision: CredentialRevision(row.col("credential_revision")?),
    })
}

pub(crate) async fn update_scheduling(
    conn: &mut SqliteConnection,
    account: AccountId,
    scheduling: &SchedulingFacts,
) -> Result<(), StorageError> {
    let done = sqlx::query(
        "UPDATE provider_accounts SET enabled = $2, concurrency_cap = $3, weight = $4, updated_at = $5 WHERE id = $1",
    )
    .bind(account.0)
    .bind(scheduling.enabled)
    .bind(opt_int4(scheduling.concurrency_cap, "provider_accounts.concurrency_cap")?)
    .bind(i64::from(scheduling.weight.get()))
    .bind(now_micros())
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    found(done.rows_affected(), "account", account)
}

/// `NotFound` unless the row `sql` selects (by `$1 = id`) exists.
pub(crate) async fn require_row(
    conn: &mut SqliteConnection,
    sql: &'static str,
    id: i64,
    entity: &'static str,
) -> Result<(), StorageError> {
    let row = sqlx::query(sql).bind(id).fetch_optional(&mut *conn).await.map_err(storage_error)?;
    row.map(|_| ()).ok_or_else(|| StorageError::not_found(entity, id))
}

/// `json_each` over the ids bound as a JSON array.
pub(crate) fn id_list(ids: impl Iterator<Item = i64>) -> String {
    serde_json::Value::from(ids.collect::<Vec<i64>>()).to_string()
}

pub(crate) async fn replace_groups(
    conn: &mut SqliteConnection,
    account: AccountId,
    groups: &[GroupId],
) -> Result<(), StorageError> {
    require_row(conn, "SELECT id FROM provider_accounts WHERE id = $1", account.0, "account").await?;
    sqlx::query("DELETE FROM account_group_accounts WHERE account_id = $1")
        .bind(account.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    sqlx::query(
        "INSERT INTO account_group_accounts (group_id, account_id) \
         SELECT DISTINCT j.value, $1 FROM json_each($2) AS j",
    )
    .bind(account.0)
    .bind(id_list(groups.iter().map(|g| g.0)))
    .execute(&mut *conn)
    .await
    .map_err(storage_error)?;
    Ok(())
}

pub(crate) async fn delete_account(conn: &mut SqliteConnection, account: AccountId) -> Result<(), StorageError> {
    let done = sqlx::query("DELETE FROM provider_accounts WHERE id = $1")
        .bind(account.0)
        .execute(&mut *conn)
        .await
        .map_err(storage_error)?;
    found(done.rows_affected(), "account", account)
}

//! Accounts: reading them ([`AccountDirectory`] and the snapshot's loaders) and the mutations of
//! the admin unit of work. Import is an upsert by `(provider, external_account_id)` that writes
//! credential, profile and provider facts only: scheduling facts, groups and quota facts of an
//! existing account are kept. Rows are mapped by `rows::accounts`.

use async_trait::async_trait;
use time::OffsetDateTime;

use gateway_admin::ports::{AccountDirectory, AccountImport, ImportOutcome};
use gateway_core::domain::{AccountId, AccountRecord, CredentialRevision, GroupId, SchedulingFacts};
use gateway_core::ports::StorageError;

use crate::crypto::Keyring;
use crate::postgres::column_values::opt_int4;
use crate::postgres::sealing::seal_credential;
use crate::row_columns::RowColumns;
use crate::rows::accounts::{account_from_row, account_select};
use crate::sql::credentials::bind_facts;
use crate::sql::links::{found, lock_row, lock_sql};
use crate::sql::store::SqlStore;
use crate::sql::{Arg, Dialect, On, Sql, Statement};

const ALL_ACCOUNTS: Sql = Sql::same(concat!(account_select!(), "ORDER BY a.id"));
const ONE_ACCOUNT: Sql = Sql::same(concat!(account_select!(), "WHERE a.id = $1"));
const ACCOUNT_GROUPS: Sql =
    Sql::same("SELECT group_id FROM account_group_accounts WHERE account_id = $1 ORDER BY group_id");
/// A new row has the column default revision 1; the conflict branch always raises it, so
/// `credential_revision = 1` after the statement says the row was created.
const IMPORT: Sql = Sql::same(
    "INSERT INTO provider_accounts (provider, external_account_id, email, plan_type, credential_ciphertext, \
     credential_key_id, credential_state, credential_reason, access_token_expires_at, next_refresh_at, \
     refresh_failure_count, provider_data, provider_data_version, created_at, updated_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) \
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
       updated_at = EXCLUDED.updated_at \
     RETURNING id, credential_revision, (credential_revision = 1) AS created",
);
const SET_SCHEDULING: Sql = Sql::same(
    "UPDATE provider_accounts SET enabled = $2, concurrency_cap = $3, weight = $4, updated_at = $5 WHERE id = $1",
);
const LOCK_ACCOUNT: Sql = lock_sql!("provider_accounts");
const DELETE_GROUPS: Sql = Sql::same("DELETE FROM account_group_accounts WHERE account_id = $1");
/// `$1` is the account, `$2` its groups: the link table's owner column is the group.
const INSERT_GROUPS: Sql = Sql::each(
    "INSERT INTO account_group_accounts (group_id, account_id) SELECT DISTINCT g, $1 FROM unnest($2::bigint[]) AS g",
    "INSERT INTO account_group_accounts (group_id, account_id) SELECT DISTINCT j.value, $1 FROM json_each($2) AS j",
);
const DELETE_ACCOUNT: Sql = Sql::same("DELETE FROM provider_accounts WHERE id = $1");

pub(crate) async fn load_all<'e, D: Dialect>(
    on: impl Into<On<'e, D>>,
    keyring: &Keyring,
) -> Result<Vec<AccountRecord>, StorageError> {
    let rows = Statement::<D>::new(&ALL_ACCOUNTS).fetch_all(on).await?;
    rows.iter().map(|row| account_from_row(row, keyring)).collect()
}

pub(crate) async fn load_one<'e, D: Dialect>(
    on: impl Into<On<'e, D>>,
    keyring: &Keyring,
    id: AccountId,
) -> Result<AccountRecord, StorageError> {
    let row = Statement::<D>::new(&ONE_ACCOUNT)
        .bind(id.0)
        .fetch_optional(on)
        .await?
        .ok_or_else(|| StorageError::not_found("account", id))?;
    account_from_row(&row, keyring)
}

#[async_trait]
impl<D: Dialect> AccountDirectory for SqlStore<D> {
    async fn list_accounts(&self) -> Result<Vec<AccountRecord>, StorageError> {
        load_all::<D>(self.reader(), self.keyring()?).await
    }

    async fn get_account(&self, id: AccountId) -> Result<AccountRecord, StorageError> {
        load_one::<D>(self.reader(), self.keyring()?, id).await
    }

    async fn account_groups(&self, id: AccountId) -> Result<Vec<GroupId>, StorageError> {
        let rows = Statement::<D>::new(&ACCOUNT_GROUPS).bind(id.0).fetch_all(self.reader()).await?;
        rows.iter().map(|row| row.col("group_id").map(GroupId)).collect()
    }
}

pub(crate) async fn import<D: Dialect>(
    conn: &mut D::Connection,
    keyring: &Keyring,
    import: &AccountImport,
) -> Result<ImportOutcome, StorageError> {
    let sealed = seal_credential(keyring, import.provider, &import.external_account_id, &import.document)?;
    let statement = Statement::<D>::new(&IMPORT)
        .bind(import.provider.as_str())
        .bind(&import.external_account_id)
        .bind(import.profile.email.as_deref())
        .bind(import.profile.plan_type.as_deref())
        .bind(sealed.ciphertext.as_slice())
        .bind(&sealed.key_id);
    let row = bind_facts(statement, &import.facts)?
        .bind(Arg::json(Some(import.provider_data.data.clone())))
        .bind(import.provider_data.version)
        .bind(OffsetDateTime::now_utc())
        .fetch_one(conn)
        .await?;
    Ok(ImportOutcome {
        account_id: AccountId(row.col("id")?),
        created: row.col("created")?,
        credential_revision: CredentialRevision(row.col("credential_revision")?),
    })
}

pub(crate) async fn update_scheduling<D: Dialect>(
    conn: &mut D::Connection,
    account: AccountId,
    scheduling: &SchedulingFacts,
) -> Result<(), StorageError> {
    let touched = Statement::<D>::new(&SET_SCHEDULING)
        .bind(account.0)
        .bind(scheduling.enabled)
        .bind(opt_int4(scheduling.concurrency_cap, "provider_accounts.concurrency_cap")?)
        .bind(i32::from(scheduling.weight.get()))
        .bind(OffsetDateTime::now_utc())
        .execute(conn)
        .await?;
    found(touched, "account", account)
}

pub(crate) async fn replace_groups<D: Dialect>(
    conn: &mut D::Connection,
    account: AccountId,
    groups: &[GroupId],
) -> Result<(), StorageError> {
    lock_row::<D>(conn, &LOCK_ACCOUNT, account.0, "account").await?;
    Statement::<D>::new(&DELETE_GROUPS).bind(account.0).execute(&mut *conn).await?;
    Statement::<D>::new(&INSERT_GROUPS)
        .bind(account.0)
        .bind(Arg::ids(groups.iter().map(|g| g.0)))
        .execute(conn)
        .await?;
    Ok(())
}

pub(crate) async fn delete<D: Dialect>(conn: &mut D::Connection, account: AccountId) -> Result<(), StorageError> {
    let touched = Statement::<D>::new(&DELETE_ACCOUNT).bind(account.0).execute(conn).await?;
    found(touched, "account", account)
}

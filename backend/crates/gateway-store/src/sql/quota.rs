//! [`QuotaStore`]: quota facts, fenced by `quota_revision` and by observation time. Quota writes
//! are runtime observations: they bump neither `config_revision` nor `updated_at`.

use async_trait::async_trait;

use gateway_core::domain::{AccountId, QuotaFacts, QuotaRevision};
use gateway_core::ports::{QuotaStore, StorageError};

use crate::row_columns::RowColumns;
use crate::sql::store::SqlStore;
use crate::sql::{Arg, Dialect, Sql, Statement};

const WRITE: Sql = Sql::each(
    "UPDATE provider_accounts SET quota_state = $3, quota_windows = $4, quota_observed_at = $5, \
     quota_revision = quota_revision + 1 \
     WHERE id = $1 AND quota_revision = $2 \
       AND (quota_observed_at IS NULL OR $5::timestamptz IS NULL OR quota_observed_at <= $5) \
     RETURNING quota_revision",
    "UPDATE provider_accounts SET quota_state = $3, quota_windows = $4, quota_observed_at = $5, \
     quota_revision = quota_revision + 1 \
     WHERE id = $1 AND quota_revision = $2 \
       AND (quota_observed_at IS NULL OR $5 IS NULL OR quota_observed_at <= $5) \
     RETURNING quota_revision",
);
const REVISION: Sql = Sql::same("SELECT quota_revision FROM provider_accounts WHERE id = $1");

#[async_trait]
impl<D: Dialect> QuotaStore for SqlStore<D> {
    async fn write_quota(
        &self,
        account: AccountId,
        expected: QuotaRevision,
        facts: QuotaFacts,
    ) -> Result<QuotaRevision, StorageError> {
        let mut conn = self.writer().acquire().await.map_err(D::storage_error)?;
        let written = Statement::<D>::new(&WRITE)
            .bind(account.0)
            .bind(expected.0)
            .bind(facts.state.as_str())
            .bind(Arg::json(Some(crate::quota_windows::to_json(&facts.windows))))
            .bind(facts.observed_at)
            .fetch_optional(&mut *conn)
            .await?;
        if let Some(row) = written {
            return Ok(QuotaRevision(row.col("quota_revision")?));
        }
        let actual = Statement::<D>::new(&REVISION)
            .bind(account.0)
            .fetch_optional(&mut *conn)
            .await?
            .ok_or_else(|| StorageError::not_found("account", account))?;
        Err(StorageError::RevisionMismatch {
            entity: "account quota",
            id: account.to_string(),
            expected: expected.0,
            actual: actual.col("quota_revision")?,
        })
    }
}

//! [`QuotaStore`]: quota facts, fenced by `quota_revision` and by observation time. Quota writes
//! are runtime observations: they bump neither `config_revision` nor `updated_at`.

use async_trait::async_trait;

use gateway_core::domain::{AccountId, QuotaFacts, QuotaRevision};
use gateway_core::ports::{QuotaStore, StorageError};

use crate::postgres::PgStore;
use crate::postgres::error_mapping::storage_error;

#[async_trait]
impl QuotaStore for PgStore {
    async fn write_quota(
        &self,
        account: AccountId,
        expected: QuotaRevision,
        facts: QuotaFacts,
    ) -> Result<QuotaRevision, StorageError> {
        let revision: Option<i64> = sqlx::query_scalar(
            "UPDATE provider_accounts SET quota_state = $3, quota_windows = $4, quota_observed_at = $5, \
             quota_revision = quota_revision + 1 \
             WHERE id = $1 AND quota_revision = $2 \
               AND (quota_observed_at IS NULL OR $5::timestamptz IS NULL OR quota_observed_at <= $5) \
             RETURNING quota_revision",
        )
        .bind(account.0)
        .bind(expected.0)
        .bind(facts.state.as_str())
        .bind(crate::quota_windows::to_json(&facts.windows))
        .bind(facts.observed_at)
        .fetch_optional(self.pool())
        .await
        .map_err(storage_error)?;
        if let Some(revision) = revision {
            return Ok(QuotaRevision(revision));
        }
        let actual: Option<i64> = sqlx::query_scalar("SELECT quota_revision FROM provider_accounts WHERE id = $1")
            .bind(account.0)
            .fetch_optional(self.pool())
            .await
            .map_err(storage_error)?;
        let actual = actual.ok_or_else(|| StorageError::not_found("account", account))?;
        Err(StorageError::RevisionMismatch {
            entity: "account quota",
            id: account.to_string(),
            expected: expected.0,
            actual,
        })
    }
}

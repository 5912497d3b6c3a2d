//! Mapping `provider_accounts` rows to [`AccountRecord`], for both dialects.

use gateway_core::domain::{
    AccountId, AccountProfile, AccountRecord, CredentialFacts, CredentialRevision, ProviderData, QuotaFacts,
    QuotaRevision, SchedulingFacts, Weight,
};
use gateway_core::ports::StorageError;

use crate::crypto::{Keyring, SealedSecret};
use crate::postgres::column_values::{closed, opt_u32_of, u32_of};
use crate::postgres::error_mapping::corrupt;
use crate::postgres::sealing::open_credential;
use crate::row_columns::RowColumns;
use crate::rows::egress_proxy::{account_proxy_context, proxy_from_row};

/// The select list every account query uses (alias `a`), ending in `FROM provider_accounts a`.
macro_rules! account_select {
    () => {
        "SELECT a.id, a.provider, a.external_account_id, a.email, a.plan_type, a.enabled, a.concurrency_cap, \
         a.weight, a.credential_ciphertext, a.credential_key_id, a.credential_revision, a.credential_state, \
         a.credential_reason, a.access_token_expires_at, a.next_refresh_at, a.refresh_failure_count, \
         a.quota_state, a.quota_windows, a.quota_observed_at, a.quota_revision, a.provider_data, \
         a.provider_data_version, a.egress_proxy, a.egress_proxy_ciphertext, a.egress_proxy_key_id, \
         a.created_at, a.updated_at FROM provider_accounts a "
    };
}
pub(crate) use account_select;

pub(crate) fn account_from_row(row: &impl RowColumns, keyring: &Keyring) -> Result<AccountRecord, StorageError> {
    let provider = closed(row.col::<&str>("provider")?, "provider_accounts.provider")?;
    let external_account_id: String = row.col("external_account_id")?;
    let weight = u8::try_from(row.col::<i16>("weight")?)
        .ok()
        .and_then(|w| Weight::new(w).ok())
        .ok_or_else(|| corrupt("provider_accounts.weight", "outside 1..=100"))?;
    let sealed = SealedSecret { key_id: row.col("credential_key_id")?, ciphertext: row.col("credential_ciphertext")? };
    let credential = open_credential(keyring, provider, &external_account_id, &sealed);
    let proxy_context = account_proxy_context(provider.as_str(), &external_account_id);
    let egress_proxy = proxy_from_row(row, keyring, &proxy_context)?;
    Ok(AccountRecord {
        id: AccountId(row.col("id")?),
        provider,
        external_account_id,
        profile: AccountProfile { email: row.col("email")?, plan_type: row.col("plan_type")? },
        scheduling: SchedulingFacts {
            enabled: row.col("enabled")?,
            concurrency_cap: opt_u32_of(row.col("concurrency_cap")?, "provider_accounts.concurrency_cap")?,
            weight,
        },
        credential_revision: CredentialRevision(row.col("credential_revision")?),
        credential,
        credential_facts: credential_facts_from_row(row)?,
        quota_revision: QuotaRevision(row.col("quota_revision")?),
        quota: QuotaFacts {
            state: closed(row.col::<&str>("quota_state")?, "provider_accounts.quota_state")?,
            windows: crate::quota_windows::from_json(row.json("quota_windows")?),
            observed_at: row.opt_ts("quota_observed_at")?,
        },
        provider_data: ProviderData { version: row.col("provider_data_version")?, data: row.json("provider_data")? },
        egress_proxy,
        created_at: row.ts("created_at")?,
        updated_at: row.ts("updated_at")?,
    })
}

/// The credential fact columns of a row (any query selecting them by name).
pub(crate) fn credential_facts_from_row(row: &impl RowColumns) -> Result<CredentialFacts, StorageError> {
    Ok(CredentialFacts {
        state: closed(row.col::<&str>("credential_state")?, "provider_accounts.credential_state")?,
        reason: row.col("credential_reason")?,
        access_token_expires_at: row.opt_ts("access_token_expires_at")?,
        next_refresh_at: row.opt_ts("next_refresh_at")?,
        refresh_failure_count: u32_of(row.col("refresh_failure_count")?, "provider_accounts.refresh_failure_count")?,
    })
}

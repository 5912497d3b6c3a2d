//! Mapping `account_cookies` rows, for both dialects: the sealed jar opened under the keyring,
//! its facts (cookies without values) read as JSON text.

use gateway_core::domain::AccountId;
use gateway_core::ports::{CookieFacts, CookieJarFacts, StorageError, StoredCookieJar};
use secrecy::{ExposeSecret, SecretString};

use crate::crypto::{Keyring, SealedSecret};
use crate::postgres::error_mapping::corrupt;
use crate::postgres::sealing::crypto_error;
use crate::row_columns::RowColumns;

/// `account_cookies.jar_ciphertext`: bound to the account's row.
pub(crate) fn jar_context(account: AccountId) -> String {
    format!("account_cookies.jar:{}", account.0)
}

pub(crate) fn seal_jar(
    keyring: &Keyring,
    account: AccountId,
    jar: &SecretString,
) -> Result<SealedSecret, StorageError> {
    keyring.seal(jar.expose_secret().as_bytes(), &jar_context(account)).map_err(crypto_error)
}

pub(crate) fn facts_json(cookies: &[CookieFacts]) -> Result<String, StorageError> {
    serde_json::to_string(cookies).map_err(|e| corrupt("account_cookies.cookies", e.to_string()))
}

fn cookies(row: &impl RowColumns) -> Result<Vec<CookieFacts>, StorageError> {
    let text: String = row.col("cookies")?;
    serde_json::from_str(&text).map_err(|e| corrupt("account_cookies.cookies", e.to_string()))
}

pub(crate) fn facts_from_row(row: &impl RowColumns) -> Result<CookieJarFacts, StorageError> {
    Ok(CookieJarFacts {
        egress_path: row.col("egress_path")?,
        cookies: cookies(row)?,
        updated_at: row.ts("updated_at")?,
    })
}

/// The jar of `row`; `None` (with a warning) when no configured key opens it.
pub(crate) fn jar_from_row(row: &impl RowColumns, keyring: &Keyring) -> Result<Option<StoredCookieJar>, StorageError> {
    let account = AccountId(row.col("account_id")?);
    let sealed = SealedSecret { key_id: row.col("jar_key_id")?, ciphertext: row.col("jar_ciphertext")? };
    let jar = match keyring.open(&sealed, &jar_context(account)) {
        Ok(jar) => jar,
        Err(error) => {
            tracing::warn!(account = %account, key_id = %sealed.key_id, %error, "a stored cookie jar cannot be opened; it is dropped");
            return Ok(None);
        }
    };
    let facts = facts_from_row(row)?;
    Ok(Some(StoredCookieJar {
        account,
        egress_path: facts.egress_path,
        jar,
        cookies: facts.cookies,
        updated_at: facts.updated_at,
    }))
}

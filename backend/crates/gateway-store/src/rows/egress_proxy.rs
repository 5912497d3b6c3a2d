//! The egress proxy columns of `provider_accounts` and `account_groups` (decision 0241), for
//! both dialects: `egress_proxy` (the URL without user info), `egress_proxy_ciphertext` and
//! `egress_proxy_key_id` (the whole URL, sealed under the row's context).

use gateway_core::domain::EgressProxy;
use gateway_core::ports::StorageError;
use secrecy::ExposeSecret;

use crate::crypto::{Keyring, SealedSecret};
use crate::postgres::sealing::crypto_error;
use crate::row_columns::RowColumns;

/// The sealing context of an account's proxy: bound to the account's stable identity.
pub(crate) fn account_proxy_context(provider: &str, external_account_id: &str) -> String {
    format!("provider_accounts.egress_proxy:{provider}:{external_account_id}")
}

/// The sealing context of a group's proxy.
pub(crate) fn group_proxy_context(group_id: i64) -> String {
    format!("account_groups.egress_proxy:{group_id}")
}

/// The proxy of a row selected with the three columns; a sealed URL that does not open gives an
/// unreadable proxy (the account is then unschedulable), never a missing one.
pub(crate) fn proxy_from_row(
    row: &impl RowColumns,
    keyring: &Keyring,
    context: &str,
) -> Result<Option<EgressProxy>, StorageError> {
    let Some(shown) = row.col::<Option<String>>("egress_proxy")? else { return Ok(None) };
    let (Some(key_id), Some(ciphertext)) =
        (row.col::<Option<String>>("egress_proxy_key_id")?, row.col::<Option<Vec<u8>>>("egress_proxy_ciphertext")?)
    else {
        return Ok(Some(EgressProxy::unreadable(shown)));
    };
    match keyring.open(&SealedSecret { key_id, ciphertext }, context) {
        Ok(url) => Ok(Some(EgressProxy::new(shown, url.expose_secret().to_owned()))),
        Err(error) => {
            tracing::warn!(proxy = %shown, %error, "stored egress proxy cannot be opened");
            Ok(Some(EgressProxy::unreadable(shown)))
        }
    }
}

/// The values of the three columns for `proxy` (`None` clears them).
pub(crate) struct ProxyColumns {
    pub display: Option<String>,
    pub ciphertext: Option<Vec<u8>>,
    pub key_id: Option<String>,
}

pub(crate) fn proxy_columns(
    keyring: &Keyring,
    proxy: Option<&EgressProxy>,
    context: &str,
) -> Result<ProxyColumns, StorageError> {
    let Some(proxy) = proxy else { return Ok(ProxyColumns { display: None, ciphertext: None, key_id: None }) };
    let url = proxy
        .expose_url()
        .ok_or_else(|| StorageError::Corrupt("an unreadable egress proxy cannot be stored".to_owned()))?;
    let sealed = keyring.seal(url.as_bytes(), context).map_err(crypto_error)?;
    Ok(ProxyColumns {
        display: Some(proxy.display().to_owned()),
        ciphertext: Some(sealed.ciphertext),
        key_id: Some(sealed.key_id),
    })
}

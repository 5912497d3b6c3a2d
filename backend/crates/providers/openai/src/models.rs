//! The per-account catalog: `GET {backend}/codex/models?client_version=` (PROTOCOL §D.1) with
//! `If-None-Match`, as the core catalog book's source.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::catalog::{CatalogEntry, CatalogFetch, CatalogFetchError, CatalogSource};
use gateway_core::domain::ProviderKind;
use gateway_core::provider::ModelInfo;
use gateway_core::snapshot::AccountEntry;
use gateway_transport::HttpRequest;
use http::{HeaderName, HeaderValue};
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::oauth::encode;
use crate::provider::OpenAiProvider;

/// Codex gives the models endpoint five seconds.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// A `{"models":[…]}` answer: the slugs in the upstream's priority order, and each model's
/// entry as sent (an entry past [`gateway_core::catalog::MAX_CATALOG_ENTRY_BYTES`] is not kept:
/// its model is still listed). `None` when the body has no models list.
pub fn parse_catalog(body: &[u8]) -> Option<(Vec<ModelInfo>, Vec<CatalogEntry>)> {
    #[derive(Deserialize)]
    struct Catalog<'a> {
        #[serde(borrow)]
        models: Vec<&'a RawValue>,
    }
    let catalog: Catalog<'_> = serde_json::from_slice(body).ok()?;
    let mut models: Vec<(i64, String, Option<CatalogEntry>)> = catalog
        .models
        .iter()
        .filter_map(|raw| {
            let head: Map<String, Value> = serde_json::from_str(raw.get()).ok()?;
            let slug = head.get("slug").and_then(Value::as_str).filter(|s| !s.is_empty())?.to_owned();
            let priority = head.get("priority").and_then(Value::as_i64).unwrap_or(i64::MAX);
            let entry = CatalogEntry::parse(raw.get())
                .map_err(|error| tracing::debug!(%slug, %error, "catalog entry not kept"))
                .ok();
            Some((priority, slug, entry))
        })
        .collect();
    models.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    models.dedup_by(|a, b| a.1 == b.1);
    let entries = models.iter().filter_map(|(_, _, entry)| entry.clone()).collect();
    Some((models.into_iter().map(|(_, id, _)| ModelInfo { id, owned_by: "openai" }).collect(), entries))
}

#[async_trait]
impl CatalogSource for OpenAiProvider {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    async fn fetch_catalog(
        &self,
        account: &AccountEntry,
        etag: Option<&str>,
    ) -> Result<CatalogFetch, CatalogFetchError> {
        let credential = self.freshest_credential(account).await.map_err(|e| CatalogFetchError(e.message.clone()))?;
        let bearer = HeaderValue::from_str(&format!("Bearer {}", credential.access_token.expose_secret()))
            .map_err(|_| CatalogFetchError("the access token is not a valid header value".into()))?;
        let account_id = credential.account_id.as_deref().unwrap_or(&account.record.external_account_id);
        let profile = self.profile().current();
        let url = format!("{}/codex/models?client_version={}", self.backend_url(), encode(&profile.version));
        let account_header = HeaderValue::from_str(account_id)
            .map_err(|_| CatalogFetchError("the account id is not a valid header value".into()))?;
        let mut request = HttpRequest::get(&url)
            .map_err(|_| CatalogFetchError("the models URL is invalid".into()))?
            .header(http::header::AUTHORIZATION, bearer)
            .header(HeaderName::from_static("chatgpt-account-id"), account_header)
            .header(HeaderName::from_static("version"), profile.version_header.clone());
        request = profile.identify(request);
        if let Some(etag) = etag.and_then(|e| HeaderValue::from_str(e).ok()) {
            request = request.header(http::header::IF_NONE_MATCH, etag);
        }
        let proxy = crate::egress::parse(account.egress_proxy.as_ref())
            .map_err(|_| CatalogFetchError(crate::egress::UNUSABLE.into()))?;
        let fetched =
            self.http().fetch(request, proxy.as_ref(), FETCH_TIMEOUT, 8 << 20).await.map_err(|e| match e {
                gateway_transport::FetchError::Timeout => CatalogFetchError("no answer in time".into()),
                gateway_transport::FetchError::Send(_) => CatalogFetchError("unreachable".into()),
                gateway_transport::FetchError::Body(_) => CatalogFetchError("the answer broke".into()),
            })?;
        match fetched.status {
            304 => return Ok(CatalogFetch::NotModified),
            200 => {}
            status => return Err(CatalogFetchError(format!("models endpoint {status}"))),
        }
        let etag = fetched.headers.get(http::header::ETAG).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let (models, entries) = parse_catalog(&fetched.body)
            .ok_or_else(|| CatalogFetchError("malformed catalog: no models list".into()))?;
        if models.is_empty() {
            return Err(CatalogFetchError("an empty catalog is not installed".into()));
        }
        Ok(CatalogFetch::Models { etag, models, entries })
    }
}

//! The per-account catalog: `GET {backend}/codex/models?client_version=` (PROTOCOL §D.1) with
//! `If-None-Match`, as the core catalog book's source.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::catalog::{CatalogFetch, CatalogFetchError, CatalogSource};
use gateway_core::domain::ProviderKind;
use gateway_core::provider::ModelInfo;
use gateway_core::snapshot::AccountEntry;
use reqwest::header::HeaderValue;
use secrecy::ExposeSecret;
use serde_json::Value;

use crate::oauth::encode;
use crate::provider::OpenAiProvider;

/// Codex gives the models endpoint five seconds.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The slugs of a `{"models":[…]}` answer, in the upstream's priority order.
pub fn parse_models(body: &Value) -> Option<Vec<ModelInfo>> {
    let mut models: Vec<(i64, String)> = body
        .get("models")?
        .as_array()?
        .iter()
        .filter_map(|m| {
            let slug = m.get("slug").and_then(Value::as_str).filter(|s| !s.is_empty())?;
            Some((m.get("priority").and_then(Value::as_i64).unwrap_or(i64::MAX), slug.to_owned()))
        })
        .collect();
    models.sort();
    models.dedup_by(|a, b| a.1 == b.1);
    Some(models.into_iter().map(|(_, id)| ModelInfo { id, owned_by: "openai" }).collect())
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
        let mut request = self
            .client()
            .get(url)
            .header(reqwest::header::AUTHORIZATION, bearer)
            .header("chatgpt-account-id", account_id)
            .header(reqwest::header::USER_AGENT, profile.user_agent_header.clone())
            .header("originator", profile.originator_header.clone())
            .header("version", profile.version_header.clone());
        if let Some(etag) = etag {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        let response = tokio::time::timeout(FETCH_TIMEOUT, request.send())
            .await
            .map_err(|_| CatalogFetchError("no answer in time".into()))?
            .map_err(|_| CatalogFetchError("unreachable".into()))?;
        match response.status().as_u16() {
            304 => return Ok(CatalogFetch::NotModified),
            200 => {}
            status => return Err(CatalogFetchError(format!("models endpoint {status}"))),
        }
        let etag = response.headers().get(reqwest::header::ETAG).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = tokio::time::timeout(FETCH_TIMEOUT, response.bytes())
            .await
            .map_err(|_| CatalogFetchError("the answer stalled".into()))?
            .map_err(|_| CatalogFetchError("the answer broke".into()))?;
        let value: Value = serde_json::from_slice(&body).map_err(|_| CatalogFetchError("malformed catalog".into()))?;
        let models = parse_models(&value).ok_or_else(|| CatalogFetchError("no models list".into()))?;
        if models.is_empty() {
            return Err(CatalogFetchError("an empty catalog is not installed".into()));
        }
        Ok(CatalogFetch::Models { etag, models })
    }
}

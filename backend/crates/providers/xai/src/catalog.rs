//! `CatalogSource` for xAI: `GET {inference}/models` (PROTOCOL H.8). An empty list, more than
//! 2,048 models or a duplicate slug reject the whole answer; unknown fields are ignored (and
//! never leave this module).

use std::collections::HashSet;
use std::time::Duration;

use async_trait::async_trait;
use gateway_core::catalog::{CatalogFetch, CatalogFetchError, CatalogSource};
use gateway_core::domain::ProviderKind;
use gateway_core::provider::ModelInfo;
use gateway_core::snapshot::AccountEntry;
use gateway_transport::HttpRequest;
use serde_json::Value;

use crate::models::OWNER;
use crate::provider::XaiProvider;

const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_MODELS: usize = 2048;
const MAX_BODY: usize = 4 * 1024 * 1024;

/// The model slugs of a `{"object":"list","data":[…]}` answer; `None` when it is rejected.
pub fn parse_models(body: &Value) -> Option<Vec<ModelInfo>> {
    let data = body.get("data")?.as_array()?;
    if data.is_empty() || data.len() > MAX_MODELS {
        return None;
    }
    let mut seen = HashSet::new();
    let mut models = Vec::with_capacity(data.len());
    for entry in data {
        let slug = ["model", "modelId", "id"]
            .iter()
            .find_map(|k| entry.get(*k).and_then(Value::as_str))
            .filter(|s| !s.trim().is_empty())?;
        if entry.get("hidden").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if !seen.insert(slug.to_owned()) {
            return None;
        }
        models.push(ModelInfo { id: slug.to_owned(), owned_by: OWNER });
    }
    Some(models)
}

#[async_trait]
impl CatalogSource for XaiProvider {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Xai
    }

    async fn fetch_catalog(
        &self,
        account: &AccountEntry,
        _etag: Option<&str>,
    ) -> Result<CatalogFetch, CatalogFetchError> {
        let credential = self.freshest_credential(account).await.map_err(|e| CatalogFetchError(e.message.clone()))?;
        let headers = crate::headers::metadata(&credential, &self.client_version().current())
            .map_err(|e| CatalogFetchError(e.to_string()))?;
        let request = HttpRequest::get(&format!("{}/models", self.inference_url()))
            .map_err(|e| CatalogFetchError(e.to_string()))?
            .headers(headers);
        let proxy =
            crate::egress::proxy_of(account).map_err(|_| CatalogFetchError("the egress proxy is not usable".into()))?;
        let fetched = self
            .http()
            .fetch(request, proxy.as_ref(), FETCH_TIMEOUT, MAX_BODY)
            .await
            .map_err(|e| CatalogFetchError(e.to_string()))?;
        if fetched.status != 200 {
            return Err(CatalogFetchError(format!("the models endpoint answered {}", fetched.status)));
        }
        let body: Value = serde_json::from_slice(&fetched.body)
            .map_err(|_| CatalogFetchError("the models answer is not JSON".into()))?;
        let models = parse_models(&body).ok_or_else(|| CatalogFetchError("the models answer was rejected".into()))?;
        Ok(CatalogFetch::Models { etag: None, models, entries: Vec::new() })
    }
}

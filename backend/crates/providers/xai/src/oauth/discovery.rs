//! OIDC discovery (`{issuer}/.well-known/openid-configuration`): the endpoints a login uses,
//! each required to sit on the issuer's own origin, and the issuer's key set.

use std::time::Duration;

use gateway_transport::{HttpClient, HttpRequest, ProxyUrl};
use jsonwebtoken::jwk::JwkSet;
use serde::Deserialize;

const MAX_DOCUMENT: usize = 256 * 1024;

#[derive(Clone, Deserialize)]
pub struct Endpoints {
    pub issuer: String,
    pub token_endpoint: String,
    pub jwks_uri: String,
    #[serde(default)]
    pub device_authorization_endpoint: Option<String>,
    #[serde(default)]
    pub id_token_signing_alg_values_supported: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("OIDC discovery failed: {0}")]
pub struct DiscoveryError(pub String);

fn origin(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    Some(parsed.origin().ascii_serialization())
}

async fn get_json(http: &HttpClient, proxy: Option<&ProxyUrl>, url: &str) -> Result<serde_json::Value, DiscoveryError> {
    let request = HttpRequest::get(url).map_err(|e| DiscoveryError(e.to_string()))?;
    let fetched = http
        .fetch(request, proxy, Duration::from_secs(15), MAX_DOCUMENT)
        .await
        .map_err(|e| DiscoveryError(e.to_string()))?;
    if fetched.status != 200 {
        return Err(DiscoveryError(format!("{url} answered {}", fetched.status)));
    }
    serde_json::from_slice(&fetched.body).map_err(|_| DiscoveryError(format!("{url} is not JSON")))
}

/// Reads and checks the discovery document of `issuer` (through `proxy` when given).
pub async fn discover(http: &HttpClient, proxy: Option<&ProxyUrl>, issuer: &str) -> Result<Endpoints, DiscoveryError> {
    let document = get_json(http, proxy, &format!("{issuer}/.well-known/openid-configuration")).await?;
    let endpoints: Endpoints =
        serde_json::from_value(document).map_err(|_| DiscoveryError("missing endpoints".to_owned()))?;
    if endpoints.issuer.trim_end_matches('/') != issuer {
        return Err(DiscoveryError("the document names another issuer".to_owned()));
    }
    let home = origin(issuer);
    let mut urls = vec![&endpoints.token_endpoint, &endpoints.jwks_uri];
    urls.extend(endpoints.device_authorization_endpoint.as_ref());
    if urls.iter().any(|u| origin(u) != home) {
        return Err(DiscoveryError("an endpoint is not on the issuer's origin".to_owned()));
    }
    if endpoints.id_token_signing_alg_values_supported.iter().any(|a| a == "none") {
        return Err(DiscoveryError("the issuer allows unsigned ID tokens".to_owned()));
    }
    Ok(endpoints)
}

pub async fn key_set(
    http: &HttpClient,
    proxy: Option<&ProxyUrl>,
    endpoints: &Endpoints,
) -> Result<JwkSet, DiscoveryError> {
    let document = get_json(http, proxy, &endpoints.jwks_uri).await?;
    serde_json::from_value(document).map_err(|_| DiscoveryError("the key set is malformed".to_owned()))
}

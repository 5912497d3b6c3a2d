//! The device authorization request of RFC 8628 (`device_authorization_endpoint`).

use std::time::Duration;

use gateway_core::oauth_login::OAuthFailure;
use gateway_transport::{HttpClient, HttpRequest, ProxyUrl};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct DeviceAnswer {
    pub device_code: String,
    pub user_code: String,
    pub verification_uri: String,
    #[serde(default)]
    pub verification_uri_complete: Option<String>,
    #[serde(default)]
    pub expires_in: Option<u64>,
    #[serde(default)]
    pub interval: Option<u64>,
}

pub async fn request_code(
    http: &HttpClient,
    proxy: Option<&ProxyUrl>,
    url: &str,
    client_id: &str,
    scope: &str,
) -> Result<DeviceAnswer, OAuthFailure> {
    let unavailable = |m: String| OAuthFailure::Unavailable(m);
    let form = serde_urlencoded::to_string([("client_id", client_id), ("scope", scope)])
        .map_err(|e| unavailable(e.to_string()))?;
    let request = HttpRequest::post(url).map_err(|e| unavailable(e.to_string()))?.form(form);
    let fetched =
        http.fetch(request, proxy, Duration::from_secs(15), 64 * 1024).await.map_err(|e| unavailable(e.to_string()))?;
    match fetched.status {
        200 => serde_json::from_slice(&fetched.body)
            .map_err(|_| unavailable("the device authorization answer is malformed".to_owned())),
        404 => Err(OAuthFailure::NotEnabled("device login".to_owned())),
        status => Err(unavailable(format!("the device authorization endpoint answered {status}"))),
    }
}

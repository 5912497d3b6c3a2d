//! `POST /v1/images/generations` and `/v1/images/edits`: no provider of this build offers an
//! image endpoint to pass through, so each answers with an error that says, per provider of
//! the key's pool, why and what to use instead (decision 0264). The key is checked first: an
//! unauthenticated caller learns nothing about the pool.

use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use gateway_core::domain::ProviderKind;
use gateway_protocol::{ApiError, ErrorCode};

use super::{ClientApi, extract, reply};

pub async fn generations(State(api): State<ClientApi>, uri: Uri, headers: HeaderMap) -> Response {
    refuse(&api, &uri, &headers)
}

pub async fn edits(State(api): State<ClientApi>, uri: Uri, headers: HeaderMap) -> Response {
    refuse(&api, &uri, &headers)
}

/// Why `provider` cannot serve an images call.
pub fn reason(provider: ProviderKind) -> &'static str {
    match provider {
        ProviderKind::Openai => {
            "openai: the ChatGPT/Codex backend has no images endpoint; ask for the `image_generation` tool in POST /v1/responses"
        }
        ProviderKind::Xai => "xai: the Grok CLI proxy a subscription reaches has no images endpoint",
    }
}

fn refuse(api: &ClientApi, uri: &Uri, headers: &HeaderMap) -> Response {
    let providers = match api.engine.pool_providers(extract::api_key(headers).as_deref()) {
        Ok(providers) => providers,
        Err(error) => return reply::error(&error),
    };
    let reasons = if providers.is_empty() {
        "this key's pool has no accounts".to_owned()
    } else {
        providers.into_iter().map(reason).collect::<Vec<_>>().join("; ")
    };
    reply::error(&ApiError::new(
        ErrorCode::OperationNotSupported,
        format!("POST {} is not offered by any provider of this key's pool ({reasons}).", uri.path()),
    ))
}

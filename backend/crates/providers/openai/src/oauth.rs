//! ChatGPT logins for new accounts and re-authorisation: the browser flow with a pasted
//! callback (PKCE S256 + state, PROTOCOL §A.2–A.3) and the device-code flow (§A.8). Tokens
//! become an `ImportedCredential` exactly like an import (identity from claims only), plus the
//! account's installation id: minted with the flow, kept from the existing credential on
//! re-authorisation. Every call of a flow leaves through the login's egress proxy, if any.

mod authorize_url;
mod device;
mod flow_payload;
mod pkce;
mod token_exchange;

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::credential_import::ImportedCredential;
use gateway_core::domain::{CredentialDocument, EgressProxy, ProviderKind};
use gateway_core::oauth_login::{AuthorizationStart, DevicePoll, DeviceStart, FlowSecret, OAuthFailure, OAuthLogin};
use gateway_transport::ProxyUrl;
use time::OffsetDateTime;

pub use authorize_url::{REDIRECT_URI, SCOPES, authorize_url, encode};
pub use device::DEVICE_CODE_LIFETIME;
pub use pkce::challenge as pkce_challenge;

use crate::credential::OpenAiCredential;
use crate::importer::imported;
use crate::request_profile::ProfileHolder;
use device::{DeviceEndpoints, Poll};
use flow_payload::{FlowPayload, PAYLOAD_VERSION};
use token_exchange::CodeExchange;

pub struct OpenAiOAuth {
    client: gateway_transport::HttpClient,
    issuer: String,
    client_id: String,
    profile: ProfileHolder,
    timeout: Duration,
}

impl OpenAiOAuth {
    /// `issuer` must already have passed the SSRF check.
    pub fn new(
        client: gateway_transport::HttpClient,
        issuer: String,
        client_id: String,
        profile: ProfileHolder,
    ) -> Self {
        Self { client, issuer, client_id, profile, timeout: Duration::from_secs(30) }
    }

    fn device<'a>(
        &'a self,
        profile: &'a crate::request_profile::RequestProfile,
        proxy: Option<&'a ProxyUrl>,
    ) -> DeviceEndpoints<'a> {
        DeviceEndpoints {
            client: &self.client,
            proxy,
            issuer: &self.issuer,
            client_id: &self.client_id,
            profile,
            timeout: self.timeout,
        }
    }

    async fn exchange(
        &self,
        code: &str,
        redirect_uri: &str,
        verifier: &str,
        installation_id: &str,
        existing: Option<&CredentialDocument>,
        proxy: Option<&ProxyUrl>,
    ) -> Result<ImportedCredential, OAuthFailure> {
        let profile = self.profile.current();
        let exchange = CodeExchange {
            client: &self.client,
            proxy,
            issuer: &self.issuer,
            client_id: &self.client_id,
            profile: &profile,
            timeout: self.timeout,
        };
        let now = OffsetDateTime::now_utc().unix_timestamp();
        let mut credential = exchange.exchange(code, redirect_uri, verifier, now).await?;
        credential.installation_id = existing
            .and_then(|doc| OpenAiCredential::decode(doc).ok())
            .and_then(|old| old.installation_id)
            .or_else(|| Some(installation_id.to_owned()));
        Ok(imported(credential))
    }
}

#[async_trait]
impl OAuthLogin for OpenAiOAuth {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    fn begin_authorization(&self) -> Result<AuthorizationStart, OAuthFailure> {
        let verifier = pkce::verifier();
        let state = pkce::state();
        let profile = self.profile.current();
        let url = authorize_url(&authorize_url::AuthorizeParams {
            issuer: &self.issuer,
            client_id: &self.client_id,
            redirect_uri: REDIRECT_URI,
            code_challenge: &pkce::challenge(&verifier),
            state: &state,
            originator: &profile.originator,
        });
        let payload = FlowPayload::Browser {
            v: PAYLOAD_VERSION,
            verifier,
            redirect_uri: REDIRECT_URI.to_owned(),
            installation_id: pkce::installation_id(),
        };
        Ok(AuthorizationStart {
            authorize_url: url,
            state,
            redirect_uri: REDIRECT_URI.to_owned(),
            payload: payload.seal(),
        })
    }

    async fn complete_authorization(
        &self,
        payload: &FlowSecret,
        code: &str,
        existing: Option<&CredentialDocument>,
        egress: Option<&EgressProxy>,
    ) -> Result<ImportedCredential, OAuthFailure> {
        let proxy = login_proxy(egress)?;
        match FlowPayload::open(payload)? {
            FlowPayload::Browser { verifier, redirect_uri, installation_id, .. } => {
                self.exchange(code, &redirect_uri, &verifier, &installation_id, existing, proxy.as_ref()).await
            }
            FlowPayload::Device { .. } => Err(OAuthFailure::CorruptFlow),
        }
    }

    async fn begin_device(&self, egress: Option<&EgressProxy>) -> Result<DeviceStart, OAuthFailure> {
        let proxy = login_proxy(egress)?;
        let profile = self.profile.current();
        let endpoints = self.device(&profile, proxy.as_ref());
        let code = endpoints.user_code().await?;
        let payload = FlowPayload::Device {
            v: PAYLOAD_VERSION,
            device_auth_id: code.device_auth_id,
            user_code: code.user_code.clone(),
            installation_id: pkce::installation_id(),
        };
        Ok(DeviceStart {
            user_code: code.user_code,
            verification_url: endpoints.verification_url(),
            interval: code.interval,
            expires_in: DEVICE_CODE_LIFETIME,
            payload: payload.seal(),
        })
    }

    async fn poll_device(
        &self,
        payload: &FlowSecret,
        existing: Option<&CredentialDocument>,
        egress: Option<&EgressProxy>,
    ) -> Result<DevicePoll, OAuthFailure> {
        let proxy = login_proxy(egress)?;
        let FlowPayload::Device { device_auth_id, user_code, installation_id, .. } = FlowPayload::open(payload)? else {
            return Err(OAuthFailure::CorruptFlow);
        };
        let profile = self.profile.current();
        let endpoints = self.device(&profile, proxy.as_ref());
        match endpoints.poll(&device_auth_id, &user_code).await? {
            Poll::Pending => Ok(DevicePoll::Pending),
            Poll::Approved { authorization_code, code_verifier } => {
                let callback = endpoints.callback_uri();
                let credential = self
                    .exchange(
                        &authorization_code,
                        &callback,
                        &code_verifier,
                        &installation_id,
                        existing,
                        proxy.as_ref(),
                    )
                    .await?;
                Ok(DevicePoll::Approved(Box::new(credential)))
            }
        }
    }
}

/// The login's proxy for the transport; one that cannot be used fails the step (never direct).
fn login_proxy(egress: Option<&EgressProxy>) -> Result<Option<ProxyUrl>, OAuthFailure> {
    crate::egress::parse(egress).map_err(|_| OAuthFailure::Unavailable(crate::egress::UNUSABLE.to_owned()))
}

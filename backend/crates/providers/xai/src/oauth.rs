//! Interactive logins (PROTOCOL G.2, H.9, H.10): the browser flow with PKCE S256, `state` and
//! `nonce` whose `127.0.0.1:56121/callback` address the admin pastes back, and the device-code
//! flow (RFC 8628). Endpoints come from OIDC discovery; every ID token is verified against the
//! issuer's JWKS (`oauth/id_token.rs`). The pending flow (30 minutes for xAI) is the admin
//! layer's; its payload here holds the verifier and nonce, or the device code. Every call of a
//! step leaves through the login's egress proxy when it has one.

pub mod discovery;
pub mod id_token;

use std::time::Duration;

use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use gateway_core::credential_import::ImportedCredential;
use gateway_core::domain::{CredentialDocument, EgressProxy, ProviderKind};
use gateway_core::oauth_login::{AuthorizationStart, DevicePoll, DeviceStart, FlowSecret, OAuthFailure, OAuthLogin};
use gateway_transport::{HttpClient, ProxyUrl};
use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::credential::XaiCredential;
use crate::importer::imported;
use crate::refresh::{Refresher, TokenAnswer, TokenRefusal};

/// The Grok CLI's loopback callback (PROTOCOL G.2).
pub const REDIRECT_URI: &str = "http://127.0.0.1:56121/callback";
pub const SCOPE: &str = "openid profile email offline_access grok-cli:access api:access";
const DEVICE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

#[derive(Serialize, Deserialize)]
struct Pending {
    #[serde(default)]
    verifier: Option<String>,
    #[serde(default)]
    nonce: Option<String>,
    #[serde(default)]
    device_code: Option<String>,
}

pub struct XaiOAuth {
    http: HttpClient,
    issuer: String,
    client_id: String,
    refresher: Refresher,
}

fn random_token() -> String {
    let bytes: [u8; 32] = rand::random();
    URL_SAFE_NO_PAD.encode(bytes)
}

fn unavailable(error: impl std::fmt::Display) -> OAuthFailure {
    OAuthFailure::Unavailable(error.to_string())
}

/// The egress route of one login step: every call (discovery, key set, device code, token,
/// userinfo) through the login's proxy, or directly when it has none.
struct Via {
    proxy: Option<ProxyUrl>,
    refresher: Refresher,
}

impl Via {
    fn proxy(&self) -> Option<&ProxyUrl> {
        self.proxy.as_ref()
    }
}

impl XaiOAuth {
    pub fn new(http: HttpClient, issuer: &str, client_id: &str, refresher: Refresher) -> Self {
        Self { http, issuer: issuer.to_owned(), client_id: client_id.to_owned(), refresher }
    }

    /// The route of a step through `egress`; a proxy that cannot be used fails the step.
    fn via(&self, egress: Option<&EgressProxy>) -> Result<Via, OAuthFailure> {
        let proxy = crate::egress::parse(egress)
            .map_err(|_| OAuthFailure::Unavailable("the egress proxy is not usable".to_owned()))?;
        Ok(Via { refresher: self.refresher.via(proxy.clone()), proxy })
    }

    /// The tokens of a successful exchange as a credential: the ID token verified (with the
    /// flow's nonce when it had one); without an ID token the identity comes from userinfo.
    async fn credential(
        &self,
        via: &Via,
        answer: TokenAnswer,
        nonce: Option<&str>,
    ) -> Result<ImportedCredential, OAuthFailure> {
        let access = answer
            .access_token
            .filter(|t| !t.is_empty())
            .ok_or_else(|| OAuthFailure::Rejected("the token answer has no access token".to_owned()))?;
        let mut credential = XaiCredential {
            access_token: SecretString::from(access),
            refresh_token: answer.refresh_token.filter(|t| !t.is_empty()).map(SecretString::from),
            expires_at: answer.expires_in.map(|s| OffsetDateTime::now_utc().unix_timestamp() + s),
            user_id: None,
            email: None,
            team_id: None,
        };
        match answer.id_token.filter(|t| !t.is_empty()) {
            Some(token) => {
                let endpoints =
                    discovery::discover(&self.http, via.proxy(), &self.issuer).await.map_err(unavailable)?;
                let keys = discovery::key_set(&self.http, via.proxy(), &endpoints).await.map_err(unavailable)?;
                let claims = id_token::verify(&token, &keys, &self.issuer, &self.client_id, nonce)
                    .map_err(|e| OAuthFailure::Rejected(e.to_string()))?;
                credential.user_id = Some(claims.sub);
                credential.email = claims.email;
                credential.team_id = claims.team_id;
            }
            None if nonce.is_some() => {
                return Err(OAuthFailure::Rejected("the token answer has no ID token".to_owned()));
            }
            None => {
                let info = via.refresher.userinfo(&credential.access_token).await.map_err(unavailable)?;
                credential.user_id = Some(info.sub);
                credential.email = info.email;
            }
        }
        Ok(imported(credential))
    }

    fn payload(pending: &Pending) -> FlowSecret {
        FlowSecret::new(serde_json::to_string(pending).unwrap_or_default())
    }

    fn read(payload: &FlowSecret) -> Result<Pending, OAuthFailure> {
        serde_json::from_str(payload.expose()).map_err(|_| OAuthFailure::CorruptFlow)
    }
}

fn refused(refusal: TokenRefusal) -> OAuthFailure {
    match (refusal.status, refusal.code.as_deref()) {
        (None, _) => OAuthFailure::Unavailable(refusal.message),
        (_, Some("expired_token")) => OAuthFailure::Expired,
        (_, Some("access_denied")) => OAuthFailure::Denied("access_denied".to_owned()),
        (Some(status), _) if status >= 500 => OAuthFailure::Unavailable(refusal.message),
        (_, code) => OAuthFailure::Rejected(code.unwrap_or("refused").to_owned()),
    }
}

#[async_trait]
impl OAuthLogin for XaiOAuth {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Xai
    }

    fn begin_authorization(&self) -> Result<AuthorizationStart, OAuthFailure> {
        let verifier = random_token();
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        let state = random_token();
        let nonce = random_token();
        let query = serde_urlencoded::to_string([
            ("response_type", "code"),
            ("client_id", self.client_id.as_str()),
            ("redirect_uri", REDIRECT_URI),
            ("scope", SCOPE),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
            ("nonce", nonce.as_str()),
            ("plan", "generic"),
            ("referrer", "switchboard"),
        ])
        .map_err(unavailable)?;
        let pending = Pending { verifier: Some(verifier), nonce: Some(nonce), device_code: None };
        Ok(AuthorizationStart {
            authorize_url: format!("{}/oauth2/authorize?{query}", self.issuer),
            state,
            redirect_uri: REDIRECT_URI.to_owned(),
            payload: Self::payload(&pending),
        })
    }

    async fn complete_authorization(
        &self,
        payload: &FlowSecret,
        code: &str,
        _existing: Option<&CredentialDocument>,
        egress: Option<&EgressProxy>,
    ) -> Result<ImportedCredential, OAuthFailure> {
        let via = self.via(egress)?;
        let pending = Self::read(payload)?;
        let (Some(verifier), Some(nonce)) = (pending.verifier, pending.nonce) else {
            return Err(OAuthFailure::CorruptFlow);
        };
        let endpoints = discovery::discover(&self.http, via.proxy(), &self.issuer).await.map_err(unavailable)?;
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT_URI),
            ("client_id", self.client_id.as_str()),
            ("code_verifier", verifier.as_str()),
        ];
        let answer = via.refresher.post_token(Some(&endpoints.token_endpoint), &form).await.map_err(refused)?;
        self.credential(&via, answer, Some(&nonce)).await
    }

    async fn begin_device(&self, egress: Option<&EgressProxy>) -> Result<DeviceStart, OAuthFailure> {
        let via = self.via(egress)?;
        let endpoints = discovery::discover(&self.http, via.proxy(), &self.issuer).await.map_err(unavailable)?;
        let url =
            endpoints.device_authorization_endpoint.unwrap_or_else(|| format!("{}/oauth2/device/code", self.issuer));
        let answer = crate::oauth_device::request_code(&self.http, via.proxy(), &url, &self.client_id, SCOPE).await?;
        let pending = Pending { verifier: None, nonce: None, device_code: Some(answer.device_code) };
        Ok(DeviceStart {
            user_code: answer.user_code,
            verification_url: answer.verification_uri_complete.unwrap_or(answer.verification_uri),
            interval: Duration::from_secs(answer.interval.unwrap_or(5).max(1)),
            expires_in: Duration::from_secs(answer.expires_in.unwrap_or(900)),
            payload: Self::payload(&pending),
        })
    }

    async fn poll_device(
        &self,
        payload: &FlowSecret,
        _existing: Option<&CredentialDocument>,
        egress: Option<&EgressProxy>,
    ) -> Result<DevicePoll, OAuthFailure> {
        let via = self.via(egress)?;
        let pending = Self::read(payload)?;
        let device_code = pending.device_code.ok_or(OAuthFailure::CorruptFlow)?;
        let endpoints = discovery::discover(&self.http, via.proxy(), &self.issuer).await.map_err(unavailable)?;
        let form =
            [("grant_type", DEVICE_GRANT), ("device_code", device_code.as_str()), ("client_id", &self.client_id)];
        match via.refresher.post_token(Some(&endpoints.token_endpoint), &form).await {
            Ok(answer) => Ok(DevicePoll::Approved(Box::new(self.credential(&via, answer, None).await?))),
            Err(refusal) if matches!(refusal.code.as_deref(), Some("authorization_pending" | "slow_down")) => {
                Ok(DevicePoll::Pending)
            }
            Err(refusal) => Err(refused(refusal)),
        }
    }
}

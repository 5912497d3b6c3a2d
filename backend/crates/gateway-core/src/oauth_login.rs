//! The provider port of interactive logins: browser authorization with a pasted callback, and
//! device-code login. The admin use cases (`gateway_admin::oauth`) own the pending flow, the
//! owner checks and the storage; a provider only builds requests, exchanges codes and turns
//! tokens into an [`ImportedCredential`] (identity from claims, exactly like an import).
//!
//! Every network call of a flow (discovery, device code, polling, token exchange, userinfo,
//! key set) leaves through `egress`, the proxy the admin layer chose for the login (issue 18);
//! `None` is direct. A proxy that cannot be used fails the step as
//! [`OAuthFailure::Unavailable`], never directly.
//!
//! The pending payload is the provider's own secret (PKCE verifier, installation id, device
//! ids): opaque to the admin layer, never printed.

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use secrecy::{ExposeSecret, SecretString};

use crate::credential_import::ImportedCredential;
use crate::domain::{CredentialDocument, EgressProxy, ProviderKind};

/// A provider's pending-flow payload.
pub struct FlowSecret(SecretString);

impl FlowSecret {
    pub fn new(text: String) -> Self {
        Self(SecretString::from(text))
    }

    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

impl fmt::Debug for FlowSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FlowSecret([REDACTED])")
    }
}

/// The first step of a browser login.
#[derive(Debug)]
pub struct AuthorizationStart {
    /// The address the admin opens.
    pub authorize_url: String,
    /// The OAuth `state`: binds the callback to this flow.
    pub state: String,
    /// Where the browser lands after consent (its address is what the admin pastes back).
    pub redirect_uri: String,
    pub payload: FlowSecret,
}

/// The first step of a device-code login.
#[derive(Debug)]
pub struct DeviceStart {
    pub user_code: String,
    /// Where the user types the code.
    pub verification_url: String,
    /// Poll no more often than this.
    pub interval: Duration,
    /// How long the code stays valid upstream.
    pub expires_in: Duration,
    pub payload: FlowSecret,
}

/// One device poll.
#[derive(Debug)]
pub enum DevicePoll {
    /// Not approved yet.
    Pending,
    /// Approved and exchanged.
    Approved(Box<ImportedCredential>),
}

/// Why a login step failed; messages never contain a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OAuthFailure {
    /// The user refused, or the workspace is not entitled (`access_denied` …).
    #[error("authorization denied: {0}")]
    Denied(String),
    /// The code or device authorization is no longer valid upstream.
    #[error("the authorization expired upstream")]
    Expired,
    /// The upstream refused the exchange (`invalid_grant`, PKCE mismatch, …).
    #[error("the upstream refused the exchange: {0}")]
    Rejected(String),
    /// Network, timeout, 5xx or a malformed answer: try again.
    #[error("the upstream is unavailable: {0}")]
    Unavailable(String),
    /// The feature is not enabled upstream (device login 404 on the user-code endpoint).
    #[error("not enabled upstream: {0}")]
    NotEnabled(String),
    /// The stored flow payload cannot be read (another build wrote it).
    #[error("the pending login cannot be read")]
    CorruptFlow,
}

#[async_trait]
pub trait OAuthLogin: Send + Sync {
    fn provider(&self) -> ProviderKind;

    /// Builds the authorize address (PKCE, state) and the payload to keep until the callback.
    fn begin_authorization(&self) -> Result<AuthorizationStart, OAuthFailure>;

    /// Exchanges the callback's code. `existing` is the target account's current credential
    /// for a re-authorisation (the provider keeps what must survive it, e.g. an installation
    /// id).
    async fn complete_authorization(
        &self,
        payload: &FlowSecret,
        code: &str,
        existing: Option<&CredentialDocument>,
        egress: Option<&EgressProxy>,
    ) -> Result<ImportedCredential, OAuthFailure>;

    /// Asks the upstream for a device code.
    async fn begin_device(&self, egress: Option<&EgressProxy>) -> Result<DeviceStart, OAuthFailure>;

    /// Polls once; exchanges the code when approved.
    async fn poll_device(
        &self,
        payload: &FlowSecret,
        existing: Option<&CredentialDocument>,
        egress: Option<&EgressProxy>,
    ) -> Result<DevicePoll, OAuthFailure>;
}

//! The request profile: how the gateway presents itself upstream (`originator`, `version`,
//! `User-Agent`), as the pinned Codex CLI does. It starts from the configuration (default: the
//! pinned version, [`PINNED_CODEX_VERSION`], the one place to bump) and may be moved forward by
//! the version check (`version_check.rs`); every upstream call reads the current one (one read
//! lock and an `Arc` clone), so a new version applies from the next request without a restart.

use std::sync::{Arc, RwLock};

use http::HeaderValue;

use crate::settings::OpenAiSettings;

/// The Codex CLI release the gateway presents itself as until a version check finds a newer
/// one. Bump it here (and nowhere else) when a new Codex is pinned.
pub const PINNED_CODEX_VERSION: &str = "0.171.0";

/// The `originator` Codex's interactive client sends.
pub const CODEX_ORIGINATOR: &str = "codex_cli_rs";

/// The platform part of the user agent, in Codex's form (`{os} {version}; {arch}`), and the
/// terminal token that follows it.
pub const USER_AGENT_PLATFORM: &str = "Debian 12.0.0; x86_64";
pub const USER_AGENT_TERMINAL: &str = "xterm";

/// One immutable profile with its header values prepared.
#[derive(Debug, Clone)]
pub struct RequestProfile {
    pub originator: String,
    /// The Codex client version (`version` header, `client_version` of the catalog).
    pub version: String,
    pub user_agent: String,
    pub originator_header: HeaderValue,
    pub version_header: HeaderValue,
    pub user_agent_header: HeaderValue,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a valid header value")]
pub struct InvalidProfile(pub String);

impl RequestProfile {
    /// A profile; `user_agent` `None` derives it from originator and version.
    pub fn new(originator: &str, version: &str, user_agent: Option<&str>) -> Result<Self, InvalidProfile> {
        let user_agent = user_agent.map(str::to_owned).unwrap_or_else(|| codex_user_agent(originator, version));
        let header = |v: &str| HeaderValue::from_str(v).map_err(|_| InvalidProfile(v.to_owned()));
        Ok(Self {
            originator_header: header(originator)?,
            version_header: header(version)?,
            user_agent_header: header(&user_agent)?,
            originator: originator.to_owned(),
            version: version.to_owned(),
            user_agent,
        })
    }

    /// `originator` and `User-Agent` on a request, as Codex sends them on every call.
    pub fn identify(&self, request: gateway_transport::HttpRequest) -> gateway_transport::HttpRequest {
        request
            .header(http::HeaderName::from_static("originator"), self.originator_header.clone())
            .header(http::header::USER_AGENT, self.user_agent_header.clone())
    }

    pub fn from_settings(settings: &OpenAiSettings) -> Result<Self, InvalidProfile> {
        Self::new(&settings.originator, &settings.client_version, settings.user_agent.as_deref())
    }
}

/// Codex's user agent: `{originator}/{version} ({platform}) {terminal}`.
pub fn codex_user_agent(originator: &str, version: &str) -> String {
    format!("{originator}/{version} ({USER_AGENT_PLATFORM}) {USER_AGENT_TERMINAL}")
}

/// The current profile, shared by the transport, the catalog, the usage probe, OAuth and the
/// version check.
#[derive(Clone)]
pub struct ProfileHolder {
    current: Arc<RwLock<Arc<RequestProfile>>>,
    /// A configured full user agent stays fixed across version changes.
    fixed_user_agent: Option<String>,
}

impl ProfileHolder {
    pub fn new(profile: RequestProfile, fixed_user_agent: Option<String>) -> Self {
        Self { current: Arc::new(RwLock::new(Arc::new(profile))), fixed_user_agent }
    }

    pub fn current(&self) -> Arc<RequestProfile> {
        self.current.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Moves to `version` (same originator). Invalid values leave the profile as it is.
    pub fn set_version(&self, version: &str) -> Result<Arc<RequestProfile>, InvalidProfile> {
        let originator = self.current().originator.clone();
        let next = Arc::new(RequestProfile::new(&originator, version, self.fixed_user_agent.as_deref())?);
        *self.current.write().unwrap_or_else(std::sync::PoisonError::into_inner) = next.clone();
        Ok(next)
    }
}

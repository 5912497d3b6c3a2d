//! `CredentialRenewer` for xAI: the refresh-token exchange (`refresh.rs`) as the core
//! refresher sees it.

use async_trait::async_trait;
use gateway_core::credential_refresh::{CredentialRenewer, RenewFailure, RenewedCredential};
use gateway_core::domain::{CredentialDocument, CredentialState, EgressProxy, ProviderKind};
use gateway_transport::ProxyUrl;
use time::OffsetDateTime;

use crate::credential::XaiCredential;
use crate::refresh::Refresher;

pub struct XaiRenewer {
    refresher: Refresher,
}

impl XaiRenewer {
    pub fn new(refresher: Refresher) -> Self {
        Self { refresher }
    }
}

#[async_trait]
impl CredentialRenewer for XaiRenewer {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Xai
    }

    async fn renew(
        &self,
        current: &CredentialDocument,
        egress: Option<&EgressProxy>,
    ) -> Result<RenewedCredential, RenewFailure> {
        let credential = XaiCredential::decode(current).map_err(|_| RenewFailure::Malformed)?;
        let unusable = || RenewFailure::Transient("the egress proxy is not usable".to_owned());
        let proxy = match egress {
            None => None,
            Some(proxy) => Some(ProxyUrl::parse(proxy.expose_url().ok_or_else(unusable)?).map_err(|_| unusable())?),
        };
        let now = OffsetDateTime::now_utc();
        let next = self
            .refresher
            .via(proxy)
            .refresh(&credential, now.unix_timestamp())
            .await
            .map_err(|error| error.into_renew_failure(|_| CredentialState::Invalid))?;
        Ok(RenewedCredential::expiring_at(next.encode(), next.expires_at))
    }
}

//! `CredentialRenewer` for xAI: the refresh-token exchange (`refresh.rs`) as the core
//! refresher sees it.

use async_trait::async_trait;
use gateway_core::credential_refresh::{CredentialRenewer, RenewFailure, RenewedCredential};
use gateway_core::domain::{CredentialDocument, CredentialState, ProviderKind};
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

    async fn renew(&self, current: &CredentialDocument) -> Result<RenewedCredential, RenewFailure> {
        let credential = XaiCredential::decode(current).map_err(|_| RenewFailure::Malformed)?;
        let now = OffsetDateTime::now_utc();
        let next = self
            .refresher
            .refresh(&credential, now.unix_timestamp())
            .await
            .map_err(|error| error.into_renew_failure(|_| CredentialState::Invalid))?;
        Ok(RenewedCredential::expiring_at(next.encode(), next.expires_at))
    }
}

//! `CredentialRenewer` for xAI: the refresh-token exchange (`refresh.rs`) as the core
//! refresher sees it.

use async_trait::async_trait;
use gateway_core::credential_refresh::{CredentialRenewer, RenewFailure, RenewedCredential};
use gateway_core::domain::{CredentialDocument, CredentialState, ProviderKind};
use time::OffsetDateTime;

use crate::credential::XaiCredential;
use crate::refresh::{RefreshError, Refresher};

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
        match self.refresher.refresh(&credential, now.unix_timestamp()).await {
            Ok(next) => Ok(RenewedCredential {
                access_token_expires_at: next.expires_at.and_then(|e| OffsetDateTime::from_unix_timestamp(e).ok()),
                document: next.encode(),
            }),
            Err(RefreshError::Permanent { code }) => {
                Err(RenewFailure::Permanent { state: CredentialState::Invalid, reason: code })
            }
            Err(RefreshError::Transient(message)) => Err(RenewFailure::Transient(message)),
            Err(RefreshError::NoRefreshToken) => Err(RenewFailure::NoRefreshToken),
        }
    }
}

//! `CredentialRenewer` for OpenAI: the refresh-token exchange (`refresh.rs`) as the core
//! refresher sees it.

use async_trait::async_trait;
use gateway_core::credential_refresh::{CredentialRenewer, RenewFailure, RenewedCredential};
use gateway_core::domain::{CredentialDocument, CredentialState, EgressProxy, ProviderKind};
use time::OffsetDateTime;

use crate::credential::OpenAiCredential;
use crate::refresh::Refresher;

/// The refusal that means the account itself is banned, not only its token.
const DEACTIVATED: &str = "account_deactivated";

pub struct OpenAiRenewer {
    refresher: Refresher,
}

impl OpenAiRenewer {
    pub fn new(refresher: Refresher) -> Self {
        Self { refresher }
    }
}

#[async_trait]
impl CredentialRenewer for OpenAiRenewer {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    async fn renew(
        &self,
        current: &CredentialDocument,
        egress: Option<&EgressProxy>,
    ) -> Result<RenewedCredential, RenewFailure> {
        let credential = OpenAiCredential::decode(current).map_err(|_| RenewFailure::Malformed)?;
        let proxy =
            crate::egress::parse(egress).map_err(|_| RenewFailure::Transient(crate::egress::UNUSABLE.into()))?;
        let now = OffsetDateTime::now_utc();
        let next =
            self.refresher.refresh_via(&credential, now.unix_timestamp(), proxy.as_ref()).await.map_err(|error| {
                error.into_renew_failure(|code| {
                    if code == DEACTIVATED { CredentialState::Banned } else { CredentialState::Invalid }
                })
            })?;
        Ok(RenewedCredential::expiring_at(next.encode(), next.expires_at))
    }
}

//! Storing a completed login: a new account (the import upsert), or the re-authorisation of an
//! existing one — same upstream account only, profile, scheduling facts and groups kept, the
//! credential replaced by a compare-and-swap on the revision read right before (re-read and
//! retried when a refresh moved it meanwhile). A new account created by a login through a named
//! proxy keeps that proxy as its own, in the same unit of work (sealed like a set proxy); the
//! audit row names the proxy a login went through without its user info.

use gateway_core::credential_import::ImportedCredential;
use gateway_core::domain::{AccountId, ProviderKind};
use gateway_core::ports::{CredentialWrite, StorageErrorKind};
use serde_json::json;

use super::error::OAuthError;
use super::flow_envelope::FlowKind;
use super::login_proxy::FlowProxy;
use crate::audit::{AuditActor, AuditEntry};
use crate::ports::{AccountDirectory, AccountImport, UnitOfWork};

/// How often a re-authorisation re-reads the revision after losing the compare-and-swap.
const REAUTHORIZE_ATTEMPTS: usize = 3;

/// The account a login ended in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginCompleted {
    pub account_id: AccountId,
    /// A new account was created (`false`: an existing one got the credential).
    pub created: bool,
    /// The login re-authorised the account it was started for.
    pub reauthorized: bool,
    pub external_account_id: String,
    pub email: Option<String>,
    /// `active`, or `unverified` when the tokens carried no identity claims.
    pub credential_state: String,
}

fn flow_name(kind: FlowKind) -> &'static str {
    match kind {
        FlowKind::Browser => "browser",
        FlowKind::Device => "device",
    }
}

/// Which login is stored.
#[derive(Debug, Clone, Copy)]
pub struct StoredLogin {
    pub provider: ProviderKind,
    /// The re-authorised account (`None`: a new login).
    pub target: Option<AccountId>,
    pub kind: FlowKind,
}

/// The audit facts of the proxy a login went through.
fn proxy_details(details: &mut serde_json::Value, proxy: Option<&FlowProxy>, kept: bool) {
    details["egress_proxy"] = json!(proxy.map(|p| p.proxy.display()));
    details["with_credentials"] = json!(proxy.is_some_and(|p| p.proxy.has_credentials()));
    details["egress_proxy_kept"] = json!(kept);
}

pub async fn store_login(
    uow: &dyn UnitOfWork,
    directory: &dyn AccountDirectory,
    login: StoredLogin,
    proxy: Option<&FlowProxy>,
    credential: ImportedCredential,
    actor: AuditActor,
) -> Result<LoginCompleted, OAuthError> {
    let StoredLogin { provider, target, kind } = login;
    let state = credential.facts.state.as_str().to_owned();
    let Some(target) = target else {
        let mut tx = uow.begin().await?;
        let outcome = tx
            .import_account(AccountImport {
                provider,
                external_account_id: credential.external_account_id.clone(),
                profile: credential.profile.clone(),
                document: credential.document,
                facts: credential.facts,
                provider_data: credential.provider_data,
            })
            .await?;
        let kept = match proxy {
            Some(flow) if flow.keep && outcome.created => {
                tx.set_account_egress_proxy(outcome.account_id, Some(&flow.proxy)).await?;
                true
            }
            _ => false,
        };
        let mut details = json!({
            "provider": provider.as_str(),
            "flow": flow_name(kind),
            "external_account_id": credential.external_account_id,
            "created": outcome.created,
        });
        proxy_details(&mut details, proxy, kept);
        let target_id = Some(outcome.account_id.0.to_string());
        tx.commit(AuditEntry::new(actor, "account.oauth_login", "account", target_id, details)).await?;
        return Ok(LoginCompleted {
            account_id: outcome.account_id,
            created: outcome.created,
            reauthorized: false,
            external_account_id: credential.external_account_id,
            email: credential.profile.email,
            credential_state: state,
        });
    };
    for _ in 0..REAUTHORIZE_ATTEMPTS {
        let account = directory.get_account(target).await?;
        if account.external_account_id != credential.external_account_id {
            return Err(OAuthError::WrongAccount);
        }
        let mut tx = uow.begin().await?;
        let write =
            CredentialWrite { document: credential.document.clone(), facts: credential.facts.clone(), profile: None };
        match tx.replace_account_credential(target, account.credential_revision, write).await {
            Ok(_) => {}
            Err(err) if err.kind() == StorageErrorKind::RevisionMismatch => continue,
            Err(err) => return Err(err.into()),
        }
        let mut details = json!({"provider": provider.as_str(), "flow": flow_name(kind)});
        proxy_details(&mut details, proxy, false);
        tx.commit(AuditEntry::new(
            actor.clone(),
            "account.reauthorize",
            "account",
            Some(target.0.to_string()),
            details,
        ))
        .await?;
        return Ok(LoginCompleted {
            account_id: target,
            created: false,
            reauthorized: true,
            external_account_id: account.external_account_id,
            email: account.profile.email,
            credential_state: state,
        });
    }
    Err(OAuthError::Conflict)
}

//! The account pool as an operator works it: list and detail views, edits, batch edits,
//! delete, import and export, the egress proxy, refresh/probe/test now, upstream logins, and
//! the live facts the event stream polls.

use std::sync::Arc;

use serde_json::Value;
use time::OffsetDateTime;

use gateway_core::coordination::{Cooldowns, ModelExclusion};
use gateway_core::credential_import::CredentialImporter;
use gateway_core::domain::{AccountId, AccountRecord, EgressProxy, ProviderKind};
use gateway_core::snapshot::CoolingDown;

use crate::account_edits::{self, AccountPatch, AccountSettings, BatchAction, BatchItem};
use crate::account_import::{self, ImportReport};
use crate::account_views::{self, AccountView, AccountViewSources};
use crate::audit::AuditActor;
use crate::auth::api_keys::confirm_password;
use crate::auth::{AdminPrincipal, ClientOrigin};
use crate::egress_proxies::check::{ProxyCheck, check_account_proxy, check_proxy_url};
use crate::egress_proxies::{ProxyOwner, set_egress_proxy};
use crate::error::AdminError;
use crate::oauth::OAuthLogins;
use crate::ports::account_actions::{ConnectionTest, ProbeReport, RefreshReport};
use crate::ports::{
    AccountActions, AccountDirectory, GroupDirectory, InFlightCounts, ProxyProbe, RuntimeSettingsReader, UsageQueries,
};
use crate::services::Mutations;
use crate::services::auth::StepUpPorts;
use crate::url_guard::UrlGuard;

/// The ports the account views read.
pub struct ViewPorts {
    pub accounts: Arc<dyn AccountDirectory>,
    pub groups: Arc<dyn GroupDirectory>,
    pub settings: Arc<dyn RuntimeSettingsReader>,
    pub cooldowns: Arc<dyn Cooldowns>,
    pub in_flight: Arc<dyn InFlightCounts>,
    pub usage: Arc<dyn UsageQueries>,
    pub cookies: Arc<dyn gateway_core::ports::CookieJarStore>,
}

/// The account's detail besides its view: its model exclusions and its cookies (no values).
pub struct AccountDetailFacts {
    pub exclusions: Vec<ModelExclusion>,
    pub cookies: Option<gateway_core::ports::CookieJarFacts>,
}

pub struct AccountPorts {
    pub uow: Mutations,
    pub views: ViewPorts,
    pub importers: Vec<Arc<dyn CredentialImporter>>,
    pub actions: Arc<dyn AccountActions>,
    pub logins: Arc<OAuthLogins>,
    pub url_guard: Arc<UrlGuard>,
    pub step_up: StepUpPorts,
    pub egress: EgressPorts,
}

/// What the egress proxy probe needs: the probe itself and the default proxy
/// (`providers.egress_proxy`, configuration).
#[derive(Clone)]
pub struct EgressPorts {
    pub probe: Arc<dyn ProxyProbe>,
    pub default_proxy: Option<EgressProxy>,
}

/// One account's live facts: the record, its cooldown (end and fault) and its in-flight requests.
pub struct LiveAccount {
    pub record: AccountRecord,
    pub cooldown: Option<CoolingDown>,
    pub in_flight: u32,
}

/// A credential export: refused without the step-up password, else the bundle.
pub enum Export {
    StepUpRequired,
    Bundle(Value),
}

pub struct AccountsService {
    ports: AccountPorts,
}

impl AccountsService {
    pub fn new(ports: AccountPorts) -> Self {
        Self { ports }
    }

    fn sources(&self) -> AccountViewSources<'_> {
        let v = &self.ports.views;
        AccountViewSources {
            accounts: v.accounts.as_ref(),
            groups: v.groups.as_ref(),
            settings: v.settings.as_ref(),
            cooldowns: v.cooldowns.as_ref(),
            in_flight: v.in_flight.as_ref(),
            usage: v.usage.as_ref(),
        }
    }

    fn directory(&self) -> &dyn AccountDirectory {
        self.ports.views.accounts.as_ref()
    }

    /// Every account (ascending id) with its view facts; `tz` must be a known zone.
    pub async fn views(&self, now: OffsetDateTime, tz: &str) -> Result<Vec<AccountView>, AdminError> {
        account_views::account_views(&self.sources(), now, tz).await
    }

    pub async fn view(&self, id: AccountId, now: OffsetDateTime, tz: &str) -> Result<AccountView, AdminError> {
        account_views::account_view(&self.sources(), id, now, tz).await
    }

    /// The account's view, the models it is excluded from for now and its cookies' facts.
    pub async fn detail(
        &self,
        id: AccountId,
        now: OffsetDateTime,
        tz: &str,
    ) -> Result<(AccountView, AccountDetailFacts), AdminError> {
        let view = self.view(id, now, tz).await?;
        let exclusions = self.ports.views.cooldowns.model_exclusions(id).await?;
        let cookies = self.ports.views.cookies.cookie_jar_facts(id).await?;
        Ok((view, AccountDetailFacts { exclusions, cookies }))
    }

    /// Edits scheduling facts and groups (audited); returns the settings before the change and
    /// the account's view after it (today in UTC).
    pub async fn update(
        &self,
        actor: AuditActor,
        id: AccountId,
        patch: AccountPatch,
    ) -> Result<(AccountSettings, AccountView), AdminError> {
        let before = account_edits::update_account(self.ports.uow.get(), self.directory(), actor, id, patch).await?;
        Ok((before, self.view(id, OffsetDateTime::now_utc(), "UTC").await?))
    }

    pub async fn delete(&self, actor: AuditActor, id: AccountId) -> Result<(), AdminError> {
        account_edits::delete_account(self.ports.uow.get(), self.directory(), actor, id).await
    }

    pub async fn batch(
        &self,
        actor: AuditActor,
        ids: &[AccountId],
        action: BatchAction,
    ) -> Result<Vec<BatchItem>, AdminError> {
        account_edits::batch(self.ports.uow.get(), self.directory(), actor, ids, action).await
    }

    fn importer(&self, provider: ProviderKind) -> Result<&dyn CredentialImporter, AdminError> {
        self.ports.importers.iter().find(|i| i.provider() == provider).map(|i| i.as_ref()).ok_or_else(|| {
            AdminError::invalid("provider", format!("importing {provider} accounts is not supported yet"))
        })
    }

    /// Imports credentials (one audit row), or with `dry_run` only reports what would happen.
    pub async fn import(
        &self,
        actor: AuditActor,
        provider: ProviderKind,
        input: &[u8],
        dry_run: bool,
    ) -> Result<ImportReport, AdminError> {
        let importer = self.importer(provider)?;
        if dry_run {
            account_import::preview_import(self.directory(), importer, input).await
        } else {
            account_import::import_accounts(self.ports.uow.get(), importer, actor, input).await
        }
    }

    /// Exports credentials (audited without the content) once the password confirms it.
    pub async fn export(
        &self,
        principal: &AdminPrincipal,
        origin: &ClientOrigin,
        password: &str,
        ids: &[AccountId],
    ) -> Result<Export, AdminError> {
        if !confirm_password(&self.ports.step_up.for_request(principal, origin), password).await? {
            return Ok(Export::StepUpRequired);
        }
        let (uow, importers) = (self.ports.uow.get(), &self.ports.importers);
        let bundle = crate::accounts::export_accounts(self.directory(), uow, importers, principal.actor(), ids).await?;
        Ok(Export::Bundle(bundle))
    }

    /// Sets (`None`: clears) an account's or group's egress proxy, checked by the SSRF guard.
    pub async fn set_egress_proxy(
        &self,
        actor: AuditActor,
        owner: ProxyOwner,
        raw: Option<&str>,
    ) -> Result<Option<EgressProxy>, AdminError> {
        let v = &self.ports.views;
        let guard = &self.ports.url_guard;
        set_egress_proxy(self.ports.uow.get(), v.accounts.as_ref(), v.groups.as_ref(), guard, actor, owner, raw).await
    }

    /// Probes a proxy URL (not stored) towards `provider`'s upstream origin.
    pub async fn check_proxy_url(&self, provider: ProviderKind, raw: &str) -> Result<ProxyCheck, AdminError> {
        check_proxy_url(&self.ports.url_guard, self.ports.egress.probe.as_ref(), provider, raw).await
    }

    /// Probes the proxy that applies to the account (its own, its group's or the default).
    pub async fn check_account_proxy(&self, id: AccountId) -> Result<ProxyCheck, AdminError> {
        let v = &self.ports.views;
        let egress = &self.ports.egress;
        let default = egress.default_proxy.as_ref();
        check_account_proxy(v.accounts.as_ref(), v.groups.as_ref(), default, egress.probe.as_ref(), id).await
    }

    async fn existing(&self, id: AccountId) -> Result<AccountId, AdminError> {
        self.directory().get_account(id).await?;
        Ok(id)
    }

    pub async fn refresh_now(&self, id: AccountId) -> Result<RefreshReport, AdminError> {
        let id = self.existing(id).await?;
        self.ports.actions.refresh_now(id).await
    }

    pub async fn probe_quota(&self, id: AccountId) -> Result<ProbeReport, AdminError> {
        let id = self.existing(id).await?;
        self.ports.actions.probe_quota(id).await
    }

    pub async fn test_connection(&self, id: AccountId) -> Result<ConnectionTest, AdminError> {
        let id = self.existing(id).await?;
        self.ports.actions.test_connection(id).await
    }

    /// Browser and device logins of upstream accounts (their own use-case object).
    pub fn logins(&self) -> &OAuthLogins {
        &self.ports.logins
    }

    /// Every account with its cooldown end and in-flight count (for the live stream).
    pub async fn live(&self) -> Result<Vec<LiveAccount>, AdminError> {
        let v = &self.ports.views;
        let accounts = v.accounts.list_accounts().await?;
        let ids: Vec<AccountId> = accounts.iter().map(|a| a.id).collect();
        let cooldowns = v.cooldowns.cooldowns(&ids).await?;
        let in_flight = v.in_flight.in_flight(&ids).await?;
        Ok(accounts
            .into_iter()
            .enumerate()
            .map(|(i, record)| LiveAccount {
                record,
                cooldown: cooldowns.get(i).copied().flatten().and_then(CoolingDown::of),
                in_flight: in_flight.get(i).copied().unwrap_or(0),
            })
            .collect())
    }
}

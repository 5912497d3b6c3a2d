//! The admin use-case services: what an operator does, grouped (accounts, groups, keys, auth,
//! settings, observability, backups, alerts, system events). The composition root builds
//! [`AdminServices`] once from [`AdminPorts`]; the admin API holds the services, not the ports.
//!
//! Each method is a whole use case: validation, the unit of work, the audit row and the change
//! notification (every unit of work of the services publishes its commit)
//! happen inside it. Handlers parse, call one method and shape the response (decision 0228).
//! Services write only through [`Mutations`], which is always publishing.

pub mod accounts;
pub mod alerts;
pub mod auth;
pub mod backups;
pub mod groups;
pub mod keys;
pub mod mutations;
pub mod observability;
pub mod settings;
pub mod system;

use std::sync::Arc;
use std::time::Duration;

use gateway_core::alerts::WebhookTransport;
use gateway_core::coordination::{ChangeNotifier, Cooldowns};
use gateway_core::credential_import::CredentialImporter;
use gateway_core::observation::ObservationQueue;

use crate::alerting::Webhook;
use crate::auth::AuthPolicy;
use crate::auth::device_cookie::DeviceCookieKey;
use crate::backup_daemon::BackupDaemon;
use crate::oauth::OAuthLogins;
use crate::ports::{
    AccountActions, AccountDirectory, AdminSessions, AdminUsers, AlertSettings, AuditSearch, AuditTrail, BackupJobs,
    ClientKeyDirectory, GroupDirectory, InFlightCounts, LoginThrottle, OpsEventQueries, RuntimeSettingsReader,
    UnitOfWork, UsageQueries,
};
use crate::url_guard::UrlGuard;

pub use accounts::AccountsService;
pub use alerts::AlertsService;
pub use auth::AuthService;
pub use backups::BackupsService;
pub use groups::GroupsService;
pub use keys::KeysService;
pub use mutations::Mutations;
pub use observability::ObservabilityService;
pub use settings::SettingsService;
pub use system::SystemService;

/// What the alert use cases need besides the unit of work and the SSRF guard.
pub struct AlertPorts {
    pub settings: Arc<dyn AlertSettings>,
    /// The webhooks of `alerts.webhooks` (read-only here; their names are reserved).
    pub configured: Vec<Webhook>,
    /// The transport deliveries use (it checks every address it connects to).
    pub transport: Arc<dyn WebhookTransport>,
    /// Where a test delivery is recorded (`alert.delivery`).
    pub records: ObservationQueue,
    /// Per POST (`alerts.timeout_seconds`).
    pub timeout: Duration,
}

/// The ports the admin services read and write through (implemented by the store, Redis and
/// the providers; handed over once by the composition root).
pub struct AdminPorts {
    /// The store's unit of work; the services publish each commit through `notifier`.
    pub uow: Arc<dyn UnitOfWork>,
    pub users: Arc<dyn AdminUsers>,
    pub sessions: Arc<dyn AdminSessions>,
    pub throttle: Arc<dyn LoginThrottle>,
    pub accounts: Arc<dyn AccountDirectory>,
    pub groups: Arc<dyn GroupDirectory>,
    pub keys: Arc<dyn ClientKeyDirectory>,
    pub settings: Arc<dyn RuntimeSettingsReader>,
    pub audit: Arc<dyn AuditTrail>,
    pub audit_search: Arc<dyn AuditSearch>,
    pub usage: Arc<dyn UsageQueries>,
    pub ops: Arc<dyn OpsEventQueries>,
    pub backups: Arc<dyn BackupJobs>,
    /// Runs, verifies, deletes and links backups (the same daemon the worker ticks).
    pub backup_daemon: Arc<BackupDaemon>,
    pub cooldowns: Arc<dyn Cooldowns>,
    pub in_flight: Arc<dyn InFlightCounts>,
    /// Each account's cookie jar, read without values for the account detail.
    pub cookies: Arc<dyn gateway_core::ports::CookieJarStore>,
    /// Publishes committed revisions; the live stream subscribes to it.
    pub notifier: Arc<dyn ChangeNotifier>,
    /// One per provider that can import/export credentials.
    pub importers: Vec<Arc<dyn CredentialImporter>>,
    /// Refresh now, quota probe now, connection test.
    pub actions: Arc<dyn AccountActions>,
    /// Browser and device logins of upstream accounts (new accounts and re-authorisation).
    pub logins: Arc<OAuthLogins>,
    /// The SSRF guard for admin-set URLs (backup endpoint, webhooks, egress proxies).
    pub url_guard: Arc<UrlGuard>,
    /// Alert webhooks and rules (stored and configured), and the transport a test uses.
    pub alerts: AlertPorts,
    /// The egress proxy probe and the default proxy.
    pub egress: accounts::EgressPorts,
}

/// The login policy and the device-cookie key the auth service applies.
#[derive(Debug, Clone)]
pub struct AuthSettings {
    pub policy: AuthPolicy,
    /// Signs the device cookies (`Debug` hides it).
    pub device_key: DeviceCookieKey,
}

/// Every admin use-case service, built once.
pub struct AdminServices {
    pub auth: AuthService,
    pub accounts: AccountsService,
    pub groups: GroupsService,
    pub keys: KeysService,
    pub settings: SettingsService,
    pub observability: ObservabilityService,
    pub backups: BackupsService,
    pub alerts: AlertsService,
    pub system: SystemService,
}

impl AdminServices {
    pub fn new(ports: AdminPorts, auth: AuthSettings) -> Self {
        let uow = Mutations::publishing(ports.uow, ports.notifier.clone());
        let auth = AuthService::new(
            auth::AuthPorts {
                uow: uow.clone(),
                users: ports.users,
                sessions: ports.sessions.clone(),
                throttle: ports.throttle,
            },
            auth,
        );
        let views = accounts::ViewPorts {
            accounts: ports.accounts.clone(),
            groups: ports.groups.clone(),
            settings: ports.settings.clone(),
            cooldowns: ports.cooldowns,
            in_flight: ports.in_flight,
            usage: ports.usage.clone(),
            cookies: ports.cookies,
        };
        let accounts = AccountsService::new(accounts::AccountPorts {
            uow: uow.clone(),
            views,
            importers: ports.importers,
            actions: ports.actions,
            logins: ports.logins,
            url_guard: ports.url_guard.clone(),
            step_up: auth.step_up_ports(),
            egress: ports.egress,
        });
        Self {
            groups: GroupsService::new(uow.clone(), ports.groups.clone(), ports.keys.clone()),
            keys: KeysService::new(uow.clone(), ports.keys, ports.groups, ports.usage.clone()),
            settings: SettingsService::new(
                uow.clone(),
                ports.settings.clone(),
                ports.backups.clone(),
                ports.url_guard.clone(),
            ),
            observability: ObservabilityService::new(observability::ObservabilityPorts {
                usage: ports.usage,
                ops: ports.ops,
                audit: ports.audit,
                audit_search: ports.audit_search,
                settings: ports.settings,
                backups: ports.backups.clone(),
                notifier: ports.notifier,
            }),
            backups: BackupsService::new(uow.clone(), ports.backups, ports.backup_daemon, auth.step_up_ports()),
            alerts: AlertsService::new(uow.clone(), ports.url_guard, ports.alerts),
            system: SystemService::new(uow),
            accounts,
            auth,
        }
    }
}

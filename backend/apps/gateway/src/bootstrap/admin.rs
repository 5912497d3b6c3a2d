//! The admin API: its ports wired to PostgreSQL, Redis and the account lifecycle (refresh,
//! quota probes, logins: the same instances the data plane and the workers use), the
//! `gateway-admin` use-case services built once over them, the first administrator
//! bootstrapped, and the router handed back for the server.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use axum::Router;
use gateway_admin::auth::device_cookie::DeviceCookieKey;
use gateway_admin::auth::{AuthPolicy, TrustedProxies};
use gateway_admin::oauth::account_checks::AccountChecks;
use gateway_admin::services::AdminServices;
use gateway_admin::url_guard::{UrlGuard, UrlPolicy};
use gateway_api::{AdminHttpConfig, AdminPorts, AlertPorts, AuthSettings, admin_routes};
use gateway_core::credential_import::CredentialImporter;
use gateway_host::update::Updater;
use gateway_store::dns::SystemResolver;
use provider_openai::OpenAiProvider;

use super::{Accounts, StartError, Storage, openai_settings};

/// The admin ports over the production storage.
pub fn ports(
    config: &Config,
    storage: &Storage,
    accounts: &Accounts,
    alerts: AlertPorts,
    backup_daemon: Arc<gateway_admin::backup_daemon::BackupDaemon>,
) -> Result<AdminPorts, StartError> {
    let store = storage.facts.clone();
    let redis = storage.coordination.clone();
    let openai = OpenAiProvider::new(&openai_settings(config), store.clone())
        .map_err(|e| StartError::Wiring(format!("openai importer: {e}")))?;
    let xai = provider_xai::XaiProvider::new(&super::xai_settings(config)?, store.clone())
        .map_err(|e| StartError::Wiring(format!("xai importer: {e}")))?;
    Ok(AdminPorts {
        uow: store.clone(),
        users: store.clone(),
        sessions: redis.clone(),
        throttle: redis.clone(),
        accounts: store.clone(),
        groups: store.clone(),
        keys: store.clone(),
        settings: store.clone(),
        audit: store.clone(),
        audit_search: store.clone(),
        usage: store.clone(),
        ops: store.clone(),
        backups: store.clone(),
        backup_daemon,
        cooldowns: redis.clone(),
        in_flight: redis.clone(),
        cookies: store.clone(),
        notifier: redis,
        importers: vec![Arc::new(openai) as Arc<dyn CredentialImporter>, Arc::new(xai) as Arc<dyn CredentialImporter>],
        actions: Arc::new(AccountChecks::new(accounts.refresher.clone(), accounts.prober.clone())),
        logins: accounts.logins.clone(),
        url_guard: Arc::new(UrlGuard::new(
            Arc::new(SystemResolver),
            UrlPolicy { allow_private: config.admin.allow_private_urls },
        )),
        alerts,
        egress: gateway_admin::services::accounts::EgressPorts {
            probe: Arc::new(super::TransportProxyProbe::new(config)?),
            default_proxy: super::default_proxy(config)?,
        },
    })
}

/// The login policy and device-cookie key of the `admin` section.
pub fn auth_settings(config: &Config) -> AuthSettings {
    let admin = &config.admin;
    AuthSettings {
        policy: AuthPolicy {
            session_idle: Duration::from_secs(admin.session_idle_minutes.saturating_mul(60)),
            session_absolute: Duration::from_secs(admin.session_absolute_hours.saturating_mul(3600)),
            max_failures_per_ip: admin.login_max_failures_per_ip,
            max_failures_per_user: admin.login_max_failures_per_user,
            max_failures_per_device: admin.login_max_failures_per_device,
            failure_window: Duration::from_secs(admin.login_window_seconds),
            device_cookie_lifetime: Duration::from_secs(admin.device_cookie_days.saturating_mul(86_400)),
            hash_concurrency: usize::try_from(admin.password_hash_concurrency).unwrap_or(1),
        },
        device_key: device_cookie_key(config),
    }
}

pub fn http_config(config: &Config) -> AdminHttpConfig {
    let admin = &config.admin;
    AdminHttpConfig {
        cookie_secure: admin.cookie_secure,
        proxies: TrustedProxies::new(admin.trusted_proxy, admin.trusted_proxy_networks()),
        live_poll: Duration::from_millis(admin.live_poll_ms),
        version: gateway_host::build_info::version().to_owned(),
    }
}

/// Derived from the master key, so every replica signs and checks device cookies alike; a
/// process without one (never in production mode) uses a random key.
fn device_cookie_key(config: &Config) -> DeviceCookieKey {
    match config.secrets.master_key.as_deref() {
        Some(master) => DeviceCookieKey::derive(master.trim().as_bytes()),
        None => DeviceCookieKey::random(),
    }
}

/// Builds the admin services, creates the first admin when there is none (printing a generated
/// password once), then builds the admin router. The self-update audits its outcomes through
/// the services' unit of work;
/// an outcome the previous process left unaudited (its update finished by this start) is
/// audited now.
pub async fn build(
    config: &Config,
    storage: &Storage,
    accounts: &Accounts,
    alerts: AlertPorts,
    updates: &Updater,
    backup_daemon: Arc<gateway_admin::backup_daemon::BackupDaemon>,
) -> Result<Router, StartError> {
    let ports = ports(config, storage, accounts, alerts, backup_daemon)?;
    let services = Arc::new(AdminServices::new(ports, auth_settings(config)));
    updates.set_audit(Arc::new(super::updates::OutcomeAudit { uow: services.system.unit_of_work() }));
    updates.audit_pending_outcome().await;
    let outcome = services
        .auth
        .bootstrap_first_admin(&config.admin.bootstrap_username, config.admin.bootstrap_password.as_deref())
        .await
        .map_err(|e| StartError::Storage(format!("cannot create the first admin: {e}")))?;
    if let Some(outcome) = outcome {
        match outcome.generated_password {
            // Printed once, on stderr, outside the structured log: it is stored only hashed.
            Some(password) => announce_generated_password(&outcome.username, &password, &config.server.data_dir),
            None => tracing::info!(username = %outcome.username, "first admin created from the configuration"),
        }
    }
    Ok(admin_routes(services, updates.clone(), http_config(config)))
}

/// The file in `server.data_dir` that keeps a generated first-admin password.
pub const PASSWORD_FILE: &str = "initial-admin-password";

/// Prints the generated password once and saves it to a private file (decision 0145), saying
/// where — or why it could not be saved.
fn announce_generated_password(username: &str, password: &str, data_dir: &Path) {
    let saved = match save_private(data_dir, PASSWORD_FILE, password) {
        Ok(path) => format!("also saved to {} (mode 0600; delete it once you have logged in)", path.display()),
        Err(err) => format!("it could NOT be saved to {}: {err}", data_dir.join(PASSWORD_FILE).display()),
    };
    eprintln!(
        "\n  first admin created: username `{username}`, password `{password}`\n  (shown once; {saved};\n  change it after logging in)\n"
    );
}

/// Writes `text` to `dir/name` readable by the owner only (the directory too, when created).
fn save_private(dir: &Path, name: &str, text: &str) -> std::io::Result<PathBuf> {
    use std::io::Write;
    let mut builder = std::fs::DirBuilder::new();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        builder.mode(0o700);
        options.mode(0o600);
    }
    if !dir.exists() {
        builder.recursive(true).create(dir)?;
    }
    let path = std::path::absolute(dir.join(name))?;
    let mut file = options.open(&path)?;
    // An older file keeps its mode through `open`: make it private either way.
    #[cfg(unix)]
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    writeln!(file, "{text}")?;
    file.sync_all()?;
    Ok(path)
}

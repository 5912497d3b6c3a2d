//! Operator commands over the same use cases the admin API calls: account import/list/export
//! and client key creation — enough to provision a gateway without the dashboard — and the
//! operator's maintenance commands (`secrets`, `admin`).

pub mod admin_users;
pub mod backup;
pub mod healthcheck;
pub mod instance;
pub mod migrate_store;
pub mod proxies;
pub mod proxy_check;
pub mod secrets;

use std::io::Read;
use std::sync::Arc;

use crate::config::Config;
use gateway_admin::account_import::import_accounts;
use gateway_admin::accounts::export_accounts;
use gateway_admin::audit::AuditActor;
use gateway_admin::client_keys::{KeySpec, create_key, create_keys};
use gateway_core::credential_import::CredentialImporter;
use gateway_core::domain::{ClientKeyLimits, GroupId};
use gateway_core::snapshot::resolve_account_state;
use provider_openai::OpenAiProvider;

use crate::bootstrap::{Facts, StartError, invalid_setting, openai_settings};
use instance::open_facts;

/// The owner of the pending logins the command line starts.
const CLI_OWNER: &str = "cli";

fn actor() -> AuditActor {
    AuditActor { user_id: None, name: "cli".to_owned() }
}

fn failed(error: impl std::fmt::Display) -> StartError {
    StartError::Wiring(error.to_string())
}

async fn importer(config: &Config, store: &Arc<dyn Facts>) -> Result<Arc<OpenAiProvider>, StartError> {
    OpenAiProvider::new(&openai_settings(config), store.clone())
        .map(Arc::new)
        .map_err(|e| StartError::Config(invalid_setting(e)))
}

async fn xai_importer(config: &Config, store: &Arc<dyn Facts>) -> Result<Arc<provider_xai::XaiProvider>, StartError> {
    let settings = crate::bootstrap::xai_settings(config)?;
    provider_xai::XaiProvider::new(&settings, store.clone())
        .map(Arc::new)
        .map_err(|e| StartError::Config(crate::bootstrap::invalid_xai_setting(e)))
}

/// `switchboard account import [--provider openai|xai] FILE|-`
pub async fn account_import(mut config: Config, file: String, provider: String) -> Result<(), StartError> {
    let mut input = Vec::new();
    if file == "-" {
        std::io::stdin().read_to_end(&mut input).map_err(failed)?;
    } else {
        input = std::fs::read(&file).map_err(|e| failed(format!("cannot read {file}: {e}")))?;
    }
    let store = open_facts(&mut config).await?;
    let importer: Arc<dyn CredentialImporter> = match provider.as_str() {
        "openai" => importer(&config, &store).await?,
        "xai" => xai_importer(&config, &store).await?,
        other => return Err(failed(format!("unknown provider `{other}`: use openai or xai"))),
    };
    let report = import_accounts(store.as_ref(), importer.as_ref(), actor(), &input).await.map_err(failed)?;
    store.close().await;
    let ids = |l: &[gateway_core::domain::AccountId]| l.iter().map(|a| a.0.to_string()).collect::<Vec<_>>().join(",");
    println!(
        "imported {} account(s): created [{}] updated [{}]",
        report.created.len() + report.updated.len(),
        ids(&report.created),
        ids(&report.updated)
    );
    let refused: Vec<String> =
        report.failed().map(|e| format!("entry {}: {}", e.entry, e.error.as_deref().unwrap_or("refused"))).collect();
    if refused.is_empty() {
        return Ok(());
    }
    // The others are stored (their refresh tokens were spent); only these need attention.
    Err(failed(format!("{} entry(ies) refused upstream, not imported: {}", refused.len(), refused.join("; "))))
}

/// `switchboard account list`
pub async fn account_list(mut config: Config) -> Result<(), StartError> {
    let store = open_facts(&mut config).await?;
    let accounts = store.list_accounts().await.map_err(failed)?;
    let now = time::OffsetDateTime::now_utc();
    println!(
        "{:>6}  {:<8} {:<32} {:<10} {:<16} {:>6} {:>4}",
        "id", "provider", "email", "plan", "state", "weight", "cap"
    );
    for account in &accounts {
        let state = resolve_account_state(account, None, now);
        println!(
            "{:>6}  {:<8} {:<32} {:<10} {:<16} {:>6} {:>4}",
            account.id.0,
            account.provider.as_str(),
            account.profile.email.as_deref().unwrap_or("-"),
            account.profile.plan_type.as_deref().unwrap_or("-"),
            state.name(),
            account.scheduling.weight.get(),
            account.scheduling.concurrency_cap.map_or("-".to_owned(), |c| c.to_string()),
        );
    }
    store.close().await;
    Ok(())
}

/// `switchboard account export --yes-export-secrets [FILE]`
pub async fn account_export(mut config: Config, confirmed: bool, file: Option<String>) -> Result<(), StartError> {
    if !confirmed {
        return Err(failed("the export holds live tokens: confirm with --yes-export-secrets"));
    }
    let store = open_facts(&mut config).await?;
    let importers: Vec<Arc<dyn CredentialImporter>> =
        vec![importer(&config, &store).await?, xai_importer(&config, &store).await?];
    let bundle = export_accounts(store.as_ref(), store.as_ref(), &importers, actor(), &[]).await.map_err(failed)?;
    let text = serde_json::to_string_pretty(&bundle).map_err(failed)?;
    match file {
        Some(path) => write_private(&path, &text)?,
        None => println!("{text}"),
    }
    store.close().await;
    Ok(())
}

fn write_private(path: &str, text: &str) -> Result<(), StartError> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(|e| failed(format!("cannot create {path}: {e}")))?;
    file.write_all(text.as_bytes()).map_err(failed)
}

/// Limits of a new key, from the command line.
pub struct KeyOptions {
    pub name: String,
    pub limits: ClientKeyLimits,
    pub models: Option<Vec<String>>,
    pub groups: Vec<i64>,
    pub expires_days: Option<u32>,
    /// More than one: keys named NAME-1 … NAME-N, one per line.
    pub count: u32,
}

/// `switchboard key create NAME`: prints the plaintext key once, on stdout.
pub async fn key_create(mut config: Config, options: KeyOptions) -> Result<(), StartError> {
    let store = open_facts(&mut config).await?;
    let spec = KeySpec {
        name: options.name,
        expires_at: options.expires_days.map(|d| time::OffsetDateTime::now_utc() + time::Duration::days(i64::from(d))),
        limits: options.limits,
        allowed_models: options.models,
        service_tier_policy: Default::default(),
        groups: options.groups.into_iter().map(GroupId).collect(),
    };
    if options.count > 1 {
        let created = create_keys(store.as_ref(), actor(), spec, options.count).await.map_err(failed)?;
        eprintln!("created {} client keys (shown once; store them now)", created.len());
        let mut out = String::with_capacity(created.len() * 48);
        for key in &created {
            out.push_str(key.secret.expose());
            out.push('\n');
        }
        print!("{out}");
    } else {
        let created = create_key(store.as_ref(), actor(), spec).await.map_err(failed)?;
        eprintln!("created client key {} (shown once; store it now)", created.id.0);
        println!("{}", created.secret.expose());
    }
    store.close().await;
    Ok(())
}

/// `switchboard settings show`
pub async fn settings_show(mut config: Config) -> Result<(), StartError> {
    let store = open_facts(&mut config).await?;
    let (revision, settings) = store.read_runtime_settings().await.map_err(failed)?;
    let mut value = serde_json::to_value(&settings).map_err(failed)?;
    value["configRevision"] = serde_json::json!(revision.0);
    println!("{}", serde_json::to_string_pretty(&value).map_err(failed)?);
    store.close().await;
    Ok(())
}

/// `switchboard settings set name=value …`: names as `settings show` prints them; values are
/// JSON (numbers, strings, objects) or bare strings.
pub async fn settings_set(mut config: Config, assignments: Vec<String>) -> Result<(), StartError> {
    use gateway_admin::audit::AuditEntry;
    let store = open_facts(&mut config).await?;
    let (_, settings) = store.read_runtime_settings().await.map_err(failed)?;
    let mut value = serde_json::to_value(&settings).map_err(failed)?;
    let mut changed = serde_json::Map::new();
    for assignment in &assignments {
        let (name, raw) =
            assignment.split_once('=').ok_or_else(|| failed(format!("`{assignment}` is not name=value")))?;
        if value.get(name).is_none() {
            return Err(failed(format!("unknown runtime setting `{name}`")));
        }
        let parsed = serde_json::from_str(raw).unwrap_or_else(|_| serde_json::Value::String(raw.to_owned()));
        value[name] = parsed.clone();
        changed.insert(name.to_owned(), parsed);
    }
    let next: gateway_core::domain::RuntimeSettings =
        serde_json::from_value(value).map_err(|e| failed(format!("invalid runtime settings: {e}")))?;
    let mut tx = store.begin().await.map_err(failed)?;
    tx.update_runtime_settings(&next).await.map_err(failed)?;
    let receipt = tx
        .commit(AuditEntry::new(
            actor(),
            "runtime_settings.update",
            "runtime_settings",
            None,
            serde_json::Value::Object(changed),
        ))
        .await
        .map_err(failed)?;
    eprintln!("runtime settings updated (config revision {})", receipt.config_revision.0);
    store.close().await;
    Ok(())
}

/// `switchboard account update ID [--enable|--disable] [--weight N] [--cap N|--cap-default]`
pub async fn account_update(mut config: Config, id: i64, update: SchedulingUpdate) -> Result<(), StartError> {
    use gateway_admin::audit::AuditEntry;
    let store = open_facts(&mut config).await?;
    let account = store.get_account(gateway_core::domain::AccountId(id)).await.map_err(failed)?;
    let mut scheduling = account.scheduling.clone();
    if let Some(enabled) = update.enabled {
        scheduling.enabled = enabled;
    }
    if let Some(weight) = update.weight {
        scheduling.weight = gateway_core::domain::Weight::new(weight).map_err(failed)?;
    }
    if update.cap_default {
        scheduling.concurrency_cap = None;
    } else if let Some(cap) = update.cap {
        scheduling.concurrency_cap = Some(cap);
    }
    let mut tx = store.begin().await.map_err(failed)?;
    tx.update_account_scheduling(account.id, &scheduling).await.map_err(failed)?;
    let details = serde_json::json!({
        "enabled": scheduling.enabled,
        "weight": scheduling.weight.get(),
        "concurrency_cap": scheduling.concurrency_cap,
    });
    tx.commit(AuditEntry::new(actor(), "account.update", "account", Some(id.to_string()), details))
        .await
        .map_err(failed)?;
    eprintln!("account {id} updated");
    store.close().await;
    Ok(())
}

/// Scheduling changes from the command line; `None` keeps the current value.
pub struct SchedulingUpdate {
    pub enabled: Option<bool>,
    pub weight: Option<u8>,
    pub cap: Option<u32>,
    pub cap_default: bool,
}
/// Options of `switchboard account login`.
pub struct LoginOptions {
    pub device: bool,
    /// Re-authorise this account.
    pub account: Option<i64>,
    /// Device login poll interval override (seconds).
    pub interval: Option<u64>,
    /// Log in through this egress proxy (`-`: the first line of standard input).
    pub egress_proxy: Option<String>,
    /// Log in through this group's egress proxy.
    pub group: Option<i64>,
}

/// `switchboard account login [--device] [--account ID]`: the addresses and codes go to
/// standard error (prompts), the result line to standard output.
pub async fn account_login(mut config: Config, options: LoginOptions) -> Result<(), StartError> {
    use gateway_admin::oauth::{DeviceLoginPoll, LoginProxy, OAuthLogins, OAuthOwner};
    use gateway_core::domain::{AccountId, GroupId, ProviderKind};
    use gateway_core::oauth_login::OAuthLogin;

    let choice = match (options.egress_proxy, options.group) {
        (Some(url), _) if url == "-" => LoginProxy::Url(proxies::first_stdin_line()?),
        (Some(url), _) => LoginProxy::Url(url),
        (None, Some(id)) => LoginProxy::Group(GroupId(id)),
        (None, None) => LoginProxy::Default,
    };
    let storage = instance::open(&mut config).await?;
    let provider = OpenAiProvider::new(&openai_settings(&config), storage.facts.clone()).map_err(failed)?;
    let logins = OAuthLogins::new(
        vec![Arc::new(provider.oauth()) as Arc<dyn OAuthLogin>],
        storage.coordination.clone(),
        storage.facts.clone(),
        storage.facts.clone(),
    )
    .with_egress(crate::bootstrap::login_egress(&config, storage.facts.clone())?);
    let owner = OAuthOwner(CLI_OWNER.to_owned());
    let target = options.account.map(AccountId);
    let completed = if options.device {
        let started =
            logins.start_device_login_via(ProviderKind::Openai, target, &choice, &owner).await.map_err(failed)?;
        eprintln!("Open {} and enter the code:", started.verification_url);
        println!("{}", started.user_code);
        let interval = options.interval.map(std::time::Duration::from_secs).unwrap_or(started.interval);
        loop {
            if time::OffsetDateTime::now_utc() > started.expires_at {
                return Err(failed("the device code expired; start again"));
            }
            tokio::time::sleep(interval).await;
            match logins.poll_device_login(ProviderKind::Openai, &started.flow_id, &owner, actor()).await {
                Ok(DeviceLoginPoll::Pending { .. }) => continue,
                Ok(DeviceLoginPoll::Completed(done)) => break done,
                Err(err) => return Err(failed(format!("{} ({})", err, err.code()))),
            }
        }
    } else {
        let started = logins.start_login_via(ProviderKind::Openai, target, &choice, &owner).await.map_err(failed)?;
        eprintln!("Open this address, sign in, then paste the address the browser ends on (it may not load):");
        println!("{}", started.authorize_url);
        let mut pasted = String::new();
        std::io::stdin().read_line(&mut pasted).map_err(failed)?;
        logins
            .complete_login(ProviderKind::Openai, pasted.trim(), &owner, actor())
            .await
            .map_err(|err| failed(format!("{} ({})", err, err.code())))?
    };
    let what = if completed.reauthorized {
        "re-authorised"
    } else if completed.created {
        "added"
    } else {
        "updated"
    };
    println!(
        "{what} account {} ({}) {}",
        completed.account_id.0,
        completed.email.as_deref().unwrap_or("no e-mail"),
        completed.credential_state
    );
    storage.close().await;
    Ok(())
}

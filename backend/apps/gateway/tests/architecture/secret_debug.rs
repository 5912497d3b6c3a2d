//! No secret reaches a `Debug` output. Two halves:
//!
//! - the sweep: every production type that holds a secret and has a `Debug` implementation is
//!   built here with a known secret, and `format!("{:?}")` must not contain it;
//! - the census: the production sources are scanned for types with a secret-bearing field
//!   (a `Secret…`/`CredentialDocument`/`PasswordHash` type, or a string field named like a
//!   token, password, key, verifier or URL) that implement or derive `Debug`; each must be in
//!   the sweep (or exempt, with the reason). A new such type fails until it is swept. A type
//!   that holds secrets only through such a type needs no entry: its `Debug` is theirs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gateway_admin::admin_user::{
    AdminApiKeySecret, AdminUserId, AdminUserRecord, NewAdminUser, PasswordHash, TotpChange, TotpSecret,
};
use gateway_admin::alerting::WebhookConfig;
use gateway_admin::backup::{BackupStorageSecrets, SecretsChange};
use gateway_admin::backup_settings::BackupSettingsInput;
use gateway_admin::config::AdminConfig;
use gateway_admin::ports::{AccountImport, AdminSession};
use gateway_api::MetricsConfig;
use gateway_core::coordination::{FlowClaim, UnixMillis};
use gateway_core::credential_import::{CandidateContent, ImportCandidate, ImportedCredential, RefreshSeed};
use gateway_core::credential_refresh::CurrentCredential;
use gateway_core::credential_refresh::renewer::RenewedCredential;
use gateway_core::domain::AccountId;
use gateway_core::domain::{
    AccountProfile, ClientKeySecret, CredentialDocument, CredentialFacts, CredentialRevision, CredentialSlot,
    ProviderData, ProviderKind,
};
use gateway_core::oauth_login::{AuthorizationStart, DeviceStart, FlowSecret};
use gateway_core::ports::{CookieFacts, CredentialWrite, StoredCookieJar};
use gateway_host::config::UpdateConfig;
use gateway_store::config::{DatabaseConfig, RedisConfig, SecretsConfig};
use gateway_store::crypto::{Keyring, MasterKey};
use gateway_store::redis::RedisSettings;
use secrecy::{ExposeSecret, SecretString};
use switchboard::config::Config;

/// The planted secret.
const SECRET: &str = "sw33p-s3cret-7c1d";

/// Swept in [`no_swept_type_prints_its_secret`]: `crate::Type` of every type the census finds.
/// (The sweep also builds some types that hold these only through another type, marked
/// "composed": their `Debug` is the inner types', checked here once more.)
const SWEPT: &[&str] = &[
    "gateway-core::CredentialDocument",
    "gateway-core::CredentialSlot",
    "gateway-core::CredentialWrite",
    "gateway-core::ClientKeySecret",
    "gateway-core::FlowSecret",
    "gateway-core::RefreshSeed",
    "gateway-core::ImportedCredential",
    "gateway-core::AuthorizationStart",
    "gateway-core::DeviceStart",
    "gateway-core::FlowClaim",
    "gateway-core::CurrentCredential",
    "gateway-core::RenewedCredential",
    "gateway-core::StoredCookieJar",
    "gateway-admin::AccountImport",
    "gateway-admin::AdminApiKeySecret",
    "gateway-admin::AdminSession",
    "gateway-admin::AdminUserRecord",
    "gateway-admin::BackupSettingsInput",
    "gateway-admin::BackupStorageSecrets",
    "gateway-admin::BackupTarget",
    "gateway-admin::ClientOrigin",
    "gateway-admin::DeviceCookieKey",
    "provider-openai::IdentityKey",
    "gateway-admin::FlowSeal",
    "gateway-admin::NewAdminUser",
    "gateway-admin::PasswordHash",
    "gateway-admin::SecretsChange",
    "gateway-admin::TotpSecret",
    "gateway-admin::TotpChange",
    "gateway-admin::AdminConfig",
    "gateway-store::DatabaseConfig",
    "gateway-store::RedisConfig",
    "gateway-store::SecretsConfig",
    "gateway-host::UpdateConfig",
    "gateway-api::MetricsConfig",
    "gateway-admin::WebhookConfig",
    "gateway-admin::Webhook",
    "gateway-admin::StoredWebhook",
    "gateway-admin::AlertWebhookInput",
    "gateway-admin::AlertWebhookWrite",
    "gateway-core::WebhookRequest",
    "gateway-store::MasterKey",
    "gateway-store::SealedSecret",
    "gateway-store::RedisSettings",
    "gateway-store::PgUrl",
    "provider-openai::OpenAiCredential",
    "provider-openai::DecodedCredential",
    "provider-xai::XaiCredential",
    "gateway-transport::ProxyUrl",
    "gateway-core::EgressProxy",
    "switchboard::TopProxyCommand",
];

/// Found by the census but holding no secret, with the reason.
const EXEMPT: &[(&str, &str)] = &[
    ("gateway-admin::LoginStarted", "the authorize address: its state is the flow id handed to the admin"),
    ("gateway-admin::DeviceLoginStarted", "the public verification address and the user code shown to the admin"),
    ("provider-openai::OpenAiSettings", "upstream URLs; credentials in them are refused at start (UrlRefused)"),
    ("provider-openai::OpenAiConfig", "upstream URLs; credentials in them are refused at start (UrlRefused)"),
    ("provider-xai::XaiSettings", "upstream URLs; credentials in them are refused at start (UrlRefused)"),
    ("provider-xai::XaiConfig", "upstream URLs; credentials in them are refused at start (UrlRefused)"),
];

fn assert_hidden(what: &str, debug: &str) {
    assert!(!debug.contains(SECRET), "{what} prints the secret: {debug}");
    assert!(!debug.contains(&SECRET[..10]), "{what} prints part of the secret: {debug}");
}

fn document() -> CredentialDocument {
    CredentialDocument::new(format!("{{\"access_token\":\"{SECRET}\",\"refresh_token\":\"{SECRET}\"}}"))
}

fn imported() -> ImportedCredential {
    ImportedCredential {
        external_account_id: "acct".to_owned(),
        profile: AccountProfile::default(),
        document: document(),
        facts: CredentialFacts::active(None, None),
        provider_data: ProviderData::default(),
    }
}

fn url_with_password(scheme: &str) -> String {
    format!("{scheme}://app:{SECRET}@127.0.0.1:1/x")
}

#[test]
fn no_swept_type_prints_its_secret() {
    let mut checked: Vec<(&str, String)> = vec![
        ("gateway-core::CredentialDocument", format!("{:?}", document())),
        ("gateway-core::CredentialSlot", format!("{:?}", CredentialSlot::Available(document()))),
        (
            "gateway-core::CredentialWrite",
            format!(
                "{:?}",
                CredentialWrite { document: document(), facts: CredentialFacts::active(None, None), profile: None }
            ),
        ),
        ("gateway-core::ClientKeySecret", format!("{:?}", ClientKeySecret::new(SECRET.to_owned()))),
        ("gateway-core::FlowSecret", format!("{:?}", FlowSecret::new(SECRET.to_owned()))),
        ("gateway-core::RefreshSeed", format!("{:?}", RefreshSeed(document()))),
        ("gateway-core::ImportedCredential", format!("{:?}", imported())),
        (
            "gateway-core::CandidateContent (composed)",
            format!("{:?}", CandidateContent::NeedsExchange(RefreshSeed(document()))),
        ),
        (
            "gateway-core::ImportCandidate (composed)",
            format!("{:?}", ImportCandidate { entry: 1, content: CandidateContent::Ready(Box::new(imported())) }),
        ),
        (
            "gateway-core::AuthorizationStart",
            format!(
                "{:?}",
                AuthorizationStart {
                    authorize_url: "https://auth.example/authorize".to_owned(),
                    state: "state".to_owned(),
                    redirect_uri: "http://localhost:1455/auth/callback".to_owned(),
                    payload: FlowSecret::new(SECRET.to_owned()),
                }
            ),
        ),
        (
            "gateway-core::DeviceStart",
            format!(
                "{:?}",
                DeviceStart {
                    user_code: "ABCD-1234".to_owned(),
                    verification_url: "https://auth.example/codex/device".to_owned(),
                    interval: Duration::from_secs(5),
                    expires_in: Duration::from_secs(900),
                    payload: FlowSecret::new(SECRET.to_owned()),
                }
            ),
        ),
        (
            "gateway-core::FlowClaim",
            format!(
                "{:?}",
                FlowClaim::Claimed { payload: SECRET.as_bytes().to_vec(), claim_expires_at: UnixMillis(1) }
            ),
        ),
        (
            "gateway-core::CurrentCredential",
            format!("{:?}", CurrentCredential { revision: CredentialRevision(1), document: document() }),
        ),
        (
            "gateway-core::RenewedCredential",
            format!("{:?}", RenewedCredential { document: document(), access_token_expires_at: None }),
        ),
        (
            "gateway-core::StoredCookieJar",
            format!(
                "{:?}",
                StoredCookieJar {
                    account: AccountId(7),
                    egress_path: "direct".to_owned(),
                    jar: SecretString::from(format!("[{{\"name\":\"__cf_bm\",\"value\":\"{SECRET}\"}}]")),
                    cookies: vec![CookieFacts {
                        name: "__cf_bm".to_owned(),
                        domain: "chatgpt.com".to_owned(),
                        path: "/".to_owned(),
                        expires_at: None,
                    }],
                    updated_at: time::OffsetDateTime::UNIX_EPOCH,
                }
            ),
        ),
    ];
    checked.extend(admin_types());
    checked.extend(host_and_store_types());
    checked.extend(provider_types());
    let names: BTreeSet<&str> = checked.iter().map(|(name, _)| *name).collect();
    for (name, debug) in &checked {
        assert_hidden(name, debug);
    }
    let missing: Vec<&&str> = SWEPT.iter().filter(|name| !names.contains(**name)).collect();
    assert!(missing.is_empty(), "listed as swept but not built here: {missing:?}");
}

/// A flow seal derived from the planted secret as binding; its key bytes must not show.
fn flow_seal() -> gateway_admin::oauth::FlowSeal {
    let key = gateway_core::coordination::OAuthFlowKey::derive(ProviderKind::Openai, SECRET.as_bytes());
    gateway_admin::oauth::FlowSeal::derive(ProviderKind::Openai, SECRET.as_bytes(), &key)
}

/// A device-cookie key derived from the planted secret: its key bytes are not the secret, so
/// the redaction itself is checked too.
fn device_cookie_key_debug() -> String {
    let debug = format!("{:?}", gateway_admin::auth::device_cookie::DeviceCookieKey::derive(SECRET.as_bytes()));
    assert!(debug.contains("REDACTED"), "DeviceCookieKey prints its key material: {debug}");
    debug
}

fn admin_types() -> Vec<(&'static str, String)> {
    let secrets = BackupStorageSecrets::new(SECRET.to_owned(), SECRET.to_owned());
    let hash = PasswordHash(format!("$argon2id$v=19$m=19456,t=2,p=1${SECRET}"));
    let user = AdminUserRecord {
        id: AdminUserId(1),
        username: "admin".to_owned(),
        password_hash: Some(hash.clone()),
        enabled: true,
        totp_enabled: false,
        api_key_prefix: None,
        api_key_created_at: None,
        last_login_at: None,
        created_at: time::OffsetDateTime::UNIX_EPOCH,
    };
    let now = time::OffsetDateTime::UNIX_EPOCH;
    let session = AdminSession {
        id: "0123456789abcdef".to_owned(),
        user_id: AdminUserId(1),
        username: "admin".to_owned(),
        csrf_token: SECRET.to_owned(),
        created_at: now,
        last_seen_at: now,
        idle_expires_at: now,
        absolute_expires_at: now,
        ip: None,
        user_agent: None,
        credential_stamp: SECRET.to_owned(),
    };
    let input = BackupSettingsInput {
        endpoint: "https://203.0.113.10".to_owned(),
        access_key_id: Some(SECRET.to_owned()),
        secret_access_key: Some(SECRET.to_owned()),
        ..BackupSettingsInput::default()
    };
    let import = AccountImport {
        provider: ProviderKind::Openai,
        external_account_id: "acct".to_owned(),
        profile: AccountProfile::default(),
        document: document(),
        facts: CredentialFacts::active(None, None),
        provider_data: ProviderData::default(),
    };
    vec![
        ("gateway-admin::AccountImport", format!("{import:?}")),
        ("gateway-admin::AdminApiKeySecret", format!("{:?}", AdminApiKeySecret::new(SECRET.to_owned()))),
        ("gateway-admin::AdminSession", format!("{session:?}")),
        ("gateway-admin::AdminUserRecord", format!("{user:?}")),
        ("gateway-admin::BackupSettingsInput", format!("{input:?}")),
        ("gateway-admin::BackupStorageSecrets", format!("{secrets:?}")),
        (
            "gateway-admin::BackupTarget",
            format!(
                "{:?}",
                gateway_admin::ports::BackupTarget {
                    endpoint: url_with_password("https"),
                    region: "auto".to_owned(),
                    bucket: "b".to_owned(),
                    path_style: true,
                    prefix: String::new(),
                    secrets: secrets.clone(),
                }
            ),
        ),
        (
            "gateway-admin::ClientOrigin",
            format!(
                "{:?}",
                gateway_admin::auth::ClientOrigin {
                    ip: Some("203.0.113.7".to_owned()),
                    device_cookie: Some(SECRET.to_owned())
                }
            ),
        ),
        ("gateway-admin::DeviceCookieKey", device_cookie_key_debug()),
        ("gateway-admin::FlowSeal", format!("{:?}", flow_seal())),
        (
            "gateway-admin::NewAdminUser",
            format!("{:?}", NewAdminUser { username: "a".to_owned(), password_hash: Some(hash.clone()) }),
        ),
        ("gateway-admin::PasswordHash", format!("{hash:?}")),
        ("gateway-admin::SecretsChange", format!("{:?}", SecretsChange::Replace(secrets.clone()))),
        ("gateway-admin::TotpSecret", format!("{:?}", TotpSecret::new(SECRET.as_bytes().to_vec()))),
        (
            "gateway-admin::TotpChange",
            format!("{:?}", TotpChange::Enable(&TotpSecret::new(SECRET.as_bytes().to_vec()))),
        ),
    ]
}

fn host_and_store_types() -> Vec<(&'static str, String)> {
    let key = MasterKey::generate("k1").expect("key");
    let material = key.to_config_value().expose_secret().to_owned();
    let master = MasterKey::parse(&format!("k1:{}", material.split_once(':').expect("ID:B64").1)).expect("parse");
    let keyring = Keyring::new(key, Vec::new()).expect("keyring");
    let sealed = keyring.seal(SECRET.as_bytes(), "ctx").expect("seal");
    let database = DatabaseConfig { url: Some(url_with_password("postgres")), ..DatabaseConfig::default() };
    let redis = RedisConfig { url: Some(url_with_password("redis")), ..RedisConfig::default() };
    let secrets =
        SecretsConfig { master_key: Some(format!("k1:{SECRET}")), retired_master_keys: vec![format!("k0:{SECRET}")] };
    let admin = AdminConfig { bootstrap_password: Some(SECRET.to_owned()), ..AdminConfig::default() };
    // The public key is public; a private mirror's token may sit in the release URL's query.
    let update = UpdateConfig {
        release_url: Some(format!("https://mirror.example/release.json?token={SECRET}")),
        ..UpdateConfig::default()
    };
    let config = Config {
        database: database.clone(),
        redis: redis.clone(),
        secrets: secrets.clone(),
        admin: admin.clone(),
        update: update.clone(),
        ..Config::default()
    };
    let encoded = material.split_once(':').expect("ID:B64").1.to_owned();
    let keys = [format!("{master:?}"), format!("{keyring:?}")];
    assert!(keys.iter().all(|debug| !debug.contains(&encoded)), "a master key prints its bytes: {keys:?}");
    vec![
        ("gateway-admin::AdminConfig", format!("{admin:?}")),
        ("gateway-store::DatabaseConfig", format!("{database:?}")),
        ("gateway-store::RedisConfig", format!("{redis:?}")),
        ("gateway-store::SecretsConfig", format!("{secrets:?}")),
        ("gateway-host::UpdateConfig", format!("{update:?}")),
        ("switchboard::Config (composed)", format!("{config:?}")),
        ("gateway-store::MasterKey", keys[0].clone()),
        ("gateway-store::Keyring (composed)", keys[1].clone()),
        ("gateway-store::SealedSecret", format!("{sealed:?}")),
        ("gateway-store::RedisSettings", format!("{:?}", RedisSettings::new(url_with_password("redis"), "p"))),
        (
            "gateway-store::PgUrl",
            format!(
                "{:?}",
                gateway_store::backup::PostgresSource::new(&url_with_password("postgres"), None).expect("a URL")
            ),
        ),
        (
            "gateway-api::MetricsConfig",
            format!("{:?}", MetricsConfig { bearer_token: Some(SECRET.to_owned()), ..MetricsConfig::default() }),
        ),
        ("gateway-admin::WebhookConfig", format!("{:?}", webhook_config())),
        ("gateway-admin::Webhook", format!("{:?}", webhook())),
        (
            "gateway-admin::StoredWebhook",
            format!(
                "{:?}",
                gateway_admin::alert_settings::StoredWebhook {
                    id: gateway_admin::alert_settings::AlertWebhookId(1),
                    name: "ops".to_owned(),
                    url: format!("https://hooks.example/h?token={SECRET}"),
                    kinds: Vec::new(),
                    enabled: true,
                    created_at: time::OffsetDateTime::UNIX_EPOCH,
                    updated_at: time::OffsetDateTime::UNIX_EPOCH,
                }
            ),
        ),
        (
            "gateway-admin::AlertWebhookInput",
            format!(
                "{:?}",
                gateway_admin::alert_settings::AlertWebhookInput {
                    name: "ops".to_owned(),
                    url: format!("https://u:{SECRET}@hooks.example/h?token={SECRET}"),
                    kinds: Vec::new(),
                    enabled: true,
                    secret: Some(SECRET.to_owned()),
                }
            ),
        ),
        (
            "gateway-admin::AlertWebhookWrite",
            format!(
                "{:?}",
                gateway_admin::alert_settings::AlertWebhookWrite {
                    name: "ops".to_owned(),
                    url: format!("https://hooks.example/h?token={SECRET}"),
                    kinds: Vec::new(),
                    enabled: true,
                    secret: Some(SecretString::from(SECRET.to_owned())),
                }
            ),
        ),
        (
            "gateway-core::WebhookRequest",
            format!(
                "{:?}",
                gateway_core::alerts::WebhookRequest {
                    url: url_with_password("https") + &format!("?token={SECRET}"),
                    headers: Vec::new(),
                    body: SECRET.as_bytes().to_vec(),
                    timeout: Duration::from_secs(1),
                }
            ),
        ),
    ]
}

fn webhook_config() -> WebhookConfig {
    WebhookConfig {
        name: "ops".to_owned(),
        url: format!("https://hooks.example/h?token={SECRET}"),
        secret: SECRET.to_owned(),
        kinds: Vec::new(),
    }
}

fn webhook() -> gateway_admin::alerting::Webhook {
    gateway_admin::alerting::Webhook {
        name: "ops".to_owned(),
        url: format!("https://hooks.example/h?token={SECRET}"),
        secret: SecretString::from(SECRET.to_owned()),
        kinds: Vec::new(),
    }
}

fn provider_types() -> Vec<(&'static str, String)> {
    use provider_openai::credential::OpenAiCredential;
    let credential = OpenAiCredential {
        access_token: SecretString::from(SECRET.to_owned()),
        refresh_token: Some(SecretString::from(SECRET.to_owned())),
        id_token: Some(SecretString::from(SECRET.to_owned())),
        account_id: Some("acct".to_owned()),
        expires_at: None,
        installation_id: None,
        last_refresh: None,
    };
    let decoded =
        provider_openai::import::DecodedCredential { identity: credential.identity(), credential: credential.clone() };
    let refused = provider_openai::upstream_url::checked_base_url(&url_with_password("https"), false)
        .expect_err("credentials in an upstream URL are refused");
    let xai = provider_xai::credential::XaiCredential {
        access_token: SecretString::from(SECRET.to_owned()),
        refresh_token: Some(SecretString::from(SECRET.to_owned())),
        expires_at: None,
        user_id: Some("user".to_owned()),
        email: None,
        team_id: None,
    };
    let check = switchboard::cli::TopProxyCommand::Check {
        url: format!("http://u:{SECRET}@127.0.0.1:3128"),
        provider: "openai".to_owned(),
    };
    let login = gateway_admin::oauth::LoginProxy::Url(format!("socks5://u:{SECRET}@127.0.0.1:1080"));
    vec![
        ("switchboard::TopProxyCommand", format!("{check:?}")),
        ("gateway-admin::LoginProxy (composed)", format!("{login:?}")),
        ("provider-xai::XaiCredential", format!("{xai:?}")),
        ("provider-openai::OpenAiCredential", format!("{credential:?}")),
        ("provider-openai::DecodedCredential", format!("{decoded:?}")),
        ("provider-openai::UrlRefused (refusal message)", format!("{refused:?} / {refused}")),
        ("gateway-transport::ProxyUrl", proxy_debug()),
        ("provider-openai::IdentityKey", identity_key_debug()),
        (
            "gateway-core::EgressProxy",
            format!(
                "{:?}",
                gateway_core::domain::EgressProxy::new(
                    "http://127.0.0.1:3128".to_owned(),
                    format!("http://u:{SECRET}@127.0.0.1:3128")
                )
            ),
        ),
    ]
}

/// The identity key derived from the planted secret: its key bytes are not the secret, so the
/// redaction itself is checked too.
fn identity_key_debug() -> String {
    let debug = format!("{:?}", provider_openai::identity::IdentityKey::derive(SECRET.as_bytes()));
    assert!(debug.contains("REDACTED"), "IdentityKey prints its key material: {debug}");
    debug
}

/// An egress proxy URL with a secret user and password: `Debug`, the redacted form and a
/// refusal of a bad one show neither.
fn proxy_debug() -> String {
    let proxy = gateway_transport::ProxyUrl::parse(&format!("socks5://{SECRET}:{SECRET}@127.0.0.1:1080"))
        .expect("a valid proxy URL");
    let refused = gateway_transport::ProxyUrl::parse(&format!("ftp://u:{SECRET}@proxy")).expect_err("scheme refused");
    format!("{proxy:?} / {} / {refused:?} / {refused}", proxy.redacted())
}

// --- the census -----------------------------------------------------------------------------

/// Field types that always hold a secret.
const SECRET_TYPES: &[&str] = &[
    "SecretString",
    "SecretBox",
    "SecretSlice",
    "FlowSecret",
    "ClientKeySecret",
    "AdminApiKeySecret",
    "TotpSecret",
    "BackupStorageSecrets",
    "SealedSecret",
    "CredentialDocument",
    "OpenAiCredential",
    "PasswordHash",
];

/// Field names that hold a secret when their type is text or bytes.
const SECRET_NAMES: &[&str] = &[
    "token",
    "password",
    "secret",
    "verifier",
    "api_key",
    "access_key",
    "master_key",
    "private_key",
    "cookie",
    "payload",
    "url",
];

/// Names that only look like secrets: counters, flags, timestamps, prefixes.
fn innocent_name(name: &str) -> bool {
    name.ends_with("_tokens")
        || name.contains("token_budget")
        || name.contains("_ms")
        || name.ends_with("_at")
        || name.ends_with("_prefix")
        || name.ends_with("_enabled")
        || name.ends_with("_configured")
}

fn texty(ty: &str) -> bool {
    let ty = ty.replace(' ', "");
    ["String", "Option<String>", "Vec<String>", "Vec<u8>", "Option<Vec<u8>>", "&str", "Box<str>"].contains(&ty.as_str())
}

/// Whether `text` names one of [`SECRET_TYPES`] (as a whole identifier).
fn names_secret_type(text: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| SECRET_TYPES.contains(&word))
}

fn secret_field(name: &str, ty: &str) -> bool {
    if names_secret_type(ty) {
        return true;
    }
    let name = name.to_ascii_lowercase();
    !innocent_name(&name) && texty(ty) && SECRET_NAMES.iter().any(|n| name.contains(n))
}

/// `(type, has_debug_derive, body)` of every struct and enum in `text`.
fn items(text: &str) -> Vec<(String, bool, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        let decl = line.strip_prefix("pub ").or_else(|| line.strip_prefix("pub(crate) ")).unwrap_or(line);
        let kind = ["struct ", "enum "].iter().find_map(|k| decl.strip_prefix(k));
        let Some(rest) = kind else {
            i += 1;
            continue;
        };
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let mut attrs = i;
        while attrs > 0 && {
            let above = lines[attrs - 1].trim_start();
            above.starts_with("#[") || above.starts_with("///") || above.starts_with(")]") || above.starts_with("//")
        } {
            attrs -= 1;
        }
        let derives_debug = lines[attrs..i].iter().any(|l| l.contains("derive(") && l.contains("Debug"));
        // The body: up to the matching brace (or `;` for a tuple/unit struct).
        let mut depth = 0i32;
        let mut body = String::new();
        let mut j = i;
        'scan: while j < lines.len() {
            for c in lines[j].chars() {
                body.push(c);
                match c {
                    '{' | '(' => depth += 1,
                    '}' | ')' => {
                        depth -= 1;
                        if depth == 0 && c == '}' {
                            break 'scan;
                        }
                    }
                    ';' if depth == 0 => break 'scan,
                    _ => {}
                }
            }
            body.push('\n');
            j += 1;
        }
        out.push((name, derives_debug, body));
        i = j + 1;
    }
    out
}

/// Whether the body of an item has a secret-bearing field (named fields, tuple fields, variants).
fn holds_secret(body: &str) -> bool {
    let inner = body.split_once(['{', '(']).map_or("", |(_, rest)| rest);
    inner.split([',', '\n', '(', '{']).any(|part| {
        let part = part.trim().trim_start_matches("pub(crate) ").trim_start_matches("pub ");
        if part.starts_with("//") || part.starts_with("#[") {
            return false;
        }
        match part.split_once(':') {
            Some((name, ty)) if !name.contains(' ') && !name.is_empty() => secret_field(name.trim(), ty.trim()),
            _ => names_secret_type(part),
        }
    })
}

fn crate_name(manifest_dir: &Path) -> String {
    let manifest = std::fs::read_to_string(manifest_dir.join("Cargo.toml")).unwrap_or_default();
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("name = \"").and_then(|r| r.strip_suffix('"')))
        .unwrap_or_default()
        .to_owned()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `crate::Type` of every production type that holds a secret and has a `Debug` implementation.
fn census(backend: &Path) -> BTreeSet<String> {
    let mut crates = Vec::new();
    for group in ["crates", "crates/providers", "apps"] {
        for entry in std::fs::read_dir(backend.join(group)).into_iter().flatten().flatten() {
            if entry.path().join("src").is_dir() {
                crates.push(entry.path());
            }
        }
    }
    let mut found = BTreeSet::new();
    for dir in crates {
        let name = crate_name(&dir);
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).unwrap_or_default()).collect();
        // Types with a hand-written `Debug` anywhere in the crate.
        let manual: BTreeSet<String> = texts
            .iter()
            .flat_map(|text| text.split("Debug for ").skip(1))
            .map(|rest| rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
            .collect();
        for text in &texts {
            for (ty, derived, body) in items(text) {
                if (derived || manual.contains(&ty)) && (SECRET_TYPES.contains(&ty.as_str()) || holds_secret(&body)) {
                    found.insert(format!("{name}::{ty}"));
                }
            }
        }
    }
    found
}

#[test]
fn every_secret_bearing_type_with_debug_is_swept() {
    let backend = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let found = census(&backend);
    assert!(found.contains("gateway-core::CredentialDocument"), "the census finds known types: {found:?}");
    let known: BTreeSet<&str> = SWEPT.iter().copied().chain(EXEMPT.iter().map(|(name, _)| *name)).collect();
    let stale: Vec<&str> = known.iter().copied().filter(|t| !found.contains(*t)).collect();
    assert!(stale.is_empty(), "listed but not found by the census (renamed? drop or fix the entry): {stale:?}");
    let unswept: Vec<&String> = found.iter().filter(|t| !known.contains(t.as_str())).collect();
    assert!(
        unswept.is_empty(),
        "types holding a secret with a Debug implementation that the sweep does not check \
         (add them to SWEPT and build them in no_swept_type_prints_its_secret): {unswept:?}"
    );
}

#[test]
fn the_census_sees_derived_and_manual_debug_on_secret_fields() {
    let text = "#[derive(Debug, Clone)]\npub struct Leaky {\n    pub api_key: String,\n    pub count: u64,\n}\n\
                pub struct Quiet {\n    pub password: String,\n}\n\
                #[derive(Debug)]\npub struct Counts {\n    pub input_tokens: u64,\n    pub first_token_ms: Option<u32>,\n}\n\
                #[derive(Debug)]\npub enum Slot {\n    Available(CredentialDocument),\n    Empty,\n}\n";
    let found: Vec<(String, bool, bool)> =
        items(text).into_iter().map(|(name, derived, body)| (name, derived, holds_secret(&body))).collect();
    assert_eq!(
        found,
        vec![
            ("Leaky".to_owned(), true, true),
            ("Quiet".to_owned(), false, true),
            ("Counts".to_owned(), true, false),
            ("Slot".to_owned(), true, true),
        ]
    );
}

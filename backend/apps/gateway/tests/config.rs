//! The root configuration the binary loads: every crate's section under its key, with the
//! crate's rules reported under the key path from the root (moved here from gateway-host with
//! the root type, decision 0225).

use std::io::Write;
use std::time::Duration;

use gateway_host::config::{ConfigError, ConfigSource, env_name, load};
use switchboard::config::Config;

fn source(yaml: Option<&str>, env: &[(&str, &str)]) -> (ConfigSource, Option<std::path::PathBuf>) {
    let file = yaml.map(|text| {
        let path = std::env::temp_dir().join(format!(
            "sb-root-config-{}-{}.yaml",
            std::process::id(),
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
        ));
        let mut f = std::fs::File::create(&path).expect("temp file");
        f.write_all(text.as_bytes()).expect("write");
        path
    });
    let env = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    (ConfigSource { file: file.clone(), env }, file)
}

fn load_with(yaml: Option<&str>, env: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let (source, file) = source(yaml, env);
    let result = load(&source);
    if let Some(file) = file {
        let _ = std::fs::remove_file(file);
    }
    result
}

#[test]
fn optional_and_list_keys_take_environment_values() {
    let config = load_with(
        None,
        &[
            ("SWITCHBOARD_DATABASE_URL", "postgres://postgres@127.0.0.1/test"),
            ("SWITCHBOARD_REDIS_URL", "redis://127.0.0.1:6379"),
            ("SWITCHBOARD_SECRETS_RETIRED_MASTER_KEYS", "[\"k0:AAAA\"]"),
        ],
    )
    .expect("valid");
    assert_eq!(config.database.url.as_deref(), Some("postgres://postgres@127.0.0.1/test"));
    assert_eq!(config.secrets.retired_master_keys, vec!["k0:AAAA".to_owned()]);
}

#[test]
fn secrets_never_show_in_debug_output() {
    let config =
        load_with(None, &[("SWITCHBOARD_SECRETS_MASTER_KEY", "k1:c2VjcmV0LXNlY3JldC1zZWNyZXQ=")]).expect("valid");
    let shown = format!("{config:?}");
    assert!(!shown.contains("c2VjcmV0"), "{shown}");
    assert!(shown.contains("REDACTED"));
}

#[test]
fn every_key_is_documented_with_its_environment_variable() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../docs/configuration.md"))
        .expect("docs/configuration.md");
    let defaults = serde_json::to_value(Config::default()).expect("defaults serialise");
    let mut missing = Vec::new();
    let mut stack = vec![(String::new(), defaults)];
    while let Some((path, value)) = stack.pop() {
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    stack.push((if path.is_empty() { k } else { format!("{path}.{k}") }, v));
                }
            }
            _ => {
                if !docs.contains(&format!("`{path}`")) || !docs.contains(&format!("`{}`", env_name(&path))) {
                    missing.push(path);
                }
            }
        }
    }
    missing.sort();
    assert!(missing.is_empty(), "undocumented configuration keys: {missing:?}");
}

#[test]
fn the_admin_section_validates_limits_hashing_device_cookies_and_proxy_networks() {
    let config = load_with(None, &[]).expect("defaults");
    let networks: Vec<String> = config.admin.trusted_proxy_networks().iter().map(ToString::to_string).collect();
    assert_eq!(networks, ["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]);
    let listed = load_with(
        None,
        &[("SWITCHBOARD_ADMIN_TRUSTED_PROXY_CIDRS", r#"["10.1.0.0/16"," 192.0.2.7 ","2001:db8::/32"]"#)],
    )
    .expect("a list of networks and single addresses");
    let networks: Vec<String> = listed.admin.trusted_proxy_networks().iter().map(ToString::to_string).collect();
    assert_eq!(networks, ["10.1.0.0/16", "192.0.2.7/32", "2001:db8::/32"]);
    for (name, value, key) in [
        ("SWITCHBOARD_ADMIN_TRUSTED_PROXY_CIDRS", r#"["10.0.0.0/33"]"#, "admin.trusted_proxy_cidrs"),
        ("SWITCHBOARD_ADMIN_TRUSTED_PROXY_CIDRS", r#"["proxy.internal"]"#, "admin.trusted_proxy_cidrs"),
        ("SWITCHBOARD_ADMIN_PASSWORD_HASH_CONCURRENCY", "0", "admin.password_hash_concurrency"),
        ("SWITCHBOARD_ADMIN_PASSWORD_HASH_CONCURRENCY", "65", "admin.password_hash_concurrency"),
        ("SWITCHBOARD_ADMIN_LOGIN_MAX_FAILURES_PER_DEVICE", "0", "admin.login_max_failures_per_device"),
        ("SWITCHBOARD_ADMIN_DEVICE_COOKIE_DAYS", "0", "admin.device_cookie_days"),
        ("SWITCHBOARD_ADMIN_DEVICE_COOKIE_DAYS", "401", "admin.device_cookie_days"),
    ] {
        let err = load_with(None, &[(name, value)]).expect_err(value);
        assert_eq!(err.key(), Some(key), "{name}={value}: {err}");
        assert!(err.to_string().contains(name), "{err}");
    }
}

#[test]
fn prewarm_budgets_are_validated_by_key() {
    let err = load_with(None, &[("SWITCHBOARD_PROVIDERS_OPENAI_PREWARM_KEY_BUDGET_BYTES", "100")]).expect_err("small");
    assert_eq!(err.key(), Some("providers.openai.prewarm_key_budget_bytes"));
    let err = load_with(
        None,
        &[
            ("SWITCHBOARD_PROVIDERS_OPENAI_PREWARM_KEY_BUDGET_BYTES", "4096"),
            ("SWITCHBOARD_PROVIDERS_OPENAI_PREWARM_TOTAL_BUDGET_BYTES", "2048"),
        ],
    )
    .expect_err("per key above the total");
    assert_eq!(err.key(), Some("providers.openai.prewarm_key_budget_bytes"));
    let config =
        load_with(None, &[("SWITCHBOARD_PROVIDERS_OPENAI_PREWARM_TOTAL_BUDGET_BYTES", "16777216")]).expect("ok");
    assert_eq!(config.providers.openai.prewarm_total_budget_bytes, 16 << 20);
    assert_eq!(config.providers.openai.prewarm_key_budget_bytes, 8 << 20);
}

#[test]
fn the_default_root_is_every_sections_default() {
    let config = load_with(None, &[]).expect("defaults are valid");
    assert_eq!(config, Config::default());
    assert_eq!(config.engine, gateway_core::engine::EngineConfig::default());
    assert_eq!(config.providers.openai, provider_openai::OpenAiConfig::default());
    assert_eq!(config.server.listen.to_string(), "127.0.0.1:8080");
}

#[test]
fn each_sections_rule_is_named_from_the_root_with_its_variable() {
    for (name, value, key) in [
        ("SWITCHBOARD_ENGINE_MAX_ATTEMPTS", "17", "engine.max_attempts"),
        ("SWITCHBOARD_ENGINE_HEADER_TIMEOUT_SECONDS", "0", "engine.header_timeout_seconds"),
        ("SWITCHBOARD_DATABASE_MAX_CONNECTIONS", "0", "database.max_connections"),
        ("SWITCHBOARD_DATABASE_URL", "mysql://x", "database.url"),
        ("SWITCHBOARD_REDIS_KEY_PREFIX", "a b", "redis.key_prefix"),
        ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL", "ftp://x", "providers.openai.backend_url"),
        ("SWITCHBOARD_PROVIDERS_XAI_VERSION_CHECK_PERIOD_SECONDS", "0", "providers.xai.version_check_period_seconds"),
        ("SWITCHBOARD_PROVIDERS_REFRESH_BATCH", "0", "providers.refresh_batch"),
        ("SWITCHBOARD_ADMIN_BOOTSTRAP_USERNAME", " ", "admin.bootstrap_username"),
        ("SWITCHBOARD_METRICS_MAX_MODELS", "0", "metrics.max_models"),
        ("SWITCHBOARD_ALERTS_EVALUATE_SECONDS", "0", "alerts.evaluate_seconds"),
        ("SWITCHBOARD_SERVER_DRAIN_TIMEOUT_SECONDS", "0", "server.drain_timeout_seconds"),
        ("SWITCHBOARD_WORKERS_RESTART_BACKOFF_INITIAL_MS", "0", "workers.restart_backoff_initial_ms"),
    ] {
        let err = load_with(None, &[(name, value)]).expect_err(name);
        assert_eq!(err.key(), Some(key), "{name}={value}: {err}");
        assert!(err.to_string().contains(&format!("(from {name})")), "{err}");
    }
    let err = load_with(None, &[("SWITCHBOARD_DATABASE_URL", "postgres://db/x")]).expect_err("no redis");
    assert_eq!(
        err.to_string(),
        "invalid value for `redis.url`: is required when database.url is set (production mode)"
    );
    let err = load_with(
        Some("alerts:\n  webhooks:\n    - name: ops\n      url: https://hooks.example/a\n      secret: short\n"),
        &[],
    )
    .expect_err("short secret");
    assert_eq!(err.key(), Some("alerts.webhooks[0].secret"));
}

#[test]
fn the_engines_header_timeout_is_its_own_key_not_the_openai_sections() {
    let config = load_with(None, &[("SWITCHBOARD_PROVIDERS_OPENAI_HEADER_TIMEOUT_SECONDS", "5")]).expect("valid");
    assert_eq!(config.engine.settings(None).header_timeout, Duration::from_secs(90));
    assert_eq!(switchboard::bootstrap::openai_settings(&config).header_timeout, Duration::from_secs(5));
    let config = load_with(None, &[("SWITCHBOARD_ENGINE_HEADER_TIMEOUT_SECONDS", "20")]).expect("valid");
    assert_eq!(config.engine.settings(None).header_timeout, Duration::from_secs(20));
    assert_eq!(switchboard::bootstrap::openai_settings(&config).header_timeout, Duration::from_secs(90));
}

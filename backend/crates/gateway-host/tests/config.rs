use std::io::Write;

use gateway_host::config::{ConfigError, ConfigSource, LogFormat, env_name, load};

fn source(yaml: Option<&str>, env: &[(&str, &str)]) -> (ConfigSource, Option<std::path::PathBuf>) {
    let file = yaml.map(|text| {
        let path = std::env::temp_dir().join(format!(
            "sb-host-config-{}-{}.yaml",
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

fn load_with(yaml: Option<&str>, env: &[(&str, &str)]) -> Result<gateway_host::Config, ConfigError> {
    let (source, file) = source(yaml, env);
    let result = load(&source);
    if let Some(file) = file {
        let _ = std::fs::remove_file(file);
    }
    result
}

#[test]
fn defaults_apply_without_file_or_environment() {
    let config = load_with(None, &[]).expect("defaults are valid");
    assert_eq!(config, gateway_host::Config::default());
    assert_eq!(config.server.listen.to_string(), "127.0.0.1:8080");
}

#[test]
fn the_environment_overrides_the_file() {
    let config = load_with(
        Some("server:\n  drain_timeout_seconds: 7\nlog:\n  format: json\n"),
        &[("SWITCHBOARD_SERVER_DRAIN_TIMEOUT_SECONDS", "9"), ("SWITCHBOARD_LOG_LEVEL", "debug")],
    )
    .expect("valid");
    assert_eq!(config.server.drain_timeout_seconds, 9);
    assert_eq!(config.log.format, LogFormat::Json);
    assert_eq!(config.log.level, "debug");
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
fn unknown_keys_are_named() {
    let err = load_with(Some("workers:\n  shutdown_timeout: 3\n"), &[]).expect_err("unknown key");
    assert!(matches!(err, ConfigError::UnknownKey { .. }));
    assert_eq!(err.key(), Some("workers.shutdown_timeout"));
}

#[test]
fn invalid_values_are_named_with_their_variable() {
    let err = load_with(None, &[("SWITCHBOARD_WORKERS_SHUTDOWN_TIMEOUT_SECONDS", "-1")]).expect_err("negative");
    assert_eq!(err.key(), Some("workers.shutdown_timeout_seconds"));
    assert!(err.to_string().contains("SWITCHBOARD_WORKERS_SHUTDOWN_TIMEOUT_SECONDS"), "{err}");
}

#[test]
fn variables_outside_the_known_sections_are_not_configuration() {
    let config = load_with(None, &[("SWITCHBOARD_KEY", "sk-abc"), ("SWITCHBOARD_TEST_DATABASE_URL", "x")]);
    assert!(config.is_ok());
}

#[test]
fn env_names_follow_the_key_path() {
    assert_eq!(env_name("server.drain_timeout_seconds"), "SWITCHBOARD_SERVER_DRAIN_TIMEOUT_SECONDS");
}

#[test]
fn an_empty_file_means_defaults_and_a_list_at_the_top_is_refused() {
    assert!(load_with(Some(""), &[]).is_ok());
    assert!(matches!(load_with(Some("- a\n- b\n"), &[]), Err(ConfigError::Syntax { .. })));
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
    let defaults = serde_json::to_value(gateway_host::Config::default()).expect("defaults serialise");
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
fn connection_limits_have_safe_defaults_and_refuse_zero() {
    let config = load_with(None, &[]).expect("defaults");
    let limits = gateway_host::ConnectionLimits::from_config(&config.server);
    assert_eq!(limits.header_read_timeout, std::time::Duration::from_secs(10));
    assert_eq!(limits.body_read_timeout, std::time::Duration::from_secs(30));
    assert_eq!(limits.keep_alive_idle_timeout, std::time::Duration::from_secs(60));
    assert_eq!(limits.max_connections, 16_384);
    for key in [
        "SWITCHBOARD_SERVER_HEADER_READ_TIMEOUT_SECONDS",
        "SWITCHBOARD_SERVER_BODY_READ_TIMEOUT_SECONDS",
        "SWITCHBOARD_SERVER_KEEP_ALIVE_IDLE_TIMEOUT_SECONDS",
        "SWITCHBOARD_SERVER_MAX_CONNECTIONS",
    ] {
        let err = load_with(None, &[(key, "0")]).expect_err("zero is refused");
        assert!(matches!(err, ConfigError::Invalid { .. }), "{key}: {err}");
        assert_eq!(err.key().map(env_name).as_deref(), Some(key));
    }
    let config = load_with(None, &[("SWITCHBOARD_SERVER_MAX_CONNECTIONS", "100")]).expect("valid");
    assert_eq!(config.server.max_connections, 100);
}

#[test]
fn the_update_section_accepts_https_and_loopback_http_only_when_allowed() {
    let ok = load_with(
        None,
        &[("SWITCHBOARD_UPDATE_RELEASE_URL", "https://example.com/releases/latest/download/release.json")],
    );
    assert!(ok.is_ok(), "{ok:?}");
    let refused = [
        ("http://127.0.0.1:9/release.json", "update.allow_http_loopback"),
        ("http://example.com/release.json", "https://"),
        ("https://user:pw@example.com/release.json", "credentials"),
        ("ftp://example.com/release.json", "https://"),
        ("release.json", "absolute URL"),
    ];
    for (url, says) in refused {
        let error = load_with(None, &[("SWITCHBOARD_UPDATE_RELEASE_URL", url)]).expect_err(url);
        let text = error.to_string();
        assert!(text.contains("update.release_url") && text.contains(says), "{url}: {text}");
        assert!(!text.contains("pw@"), "the value is not echoed: {text}");
    }
    let loopback = load_with(
        None,
        &[
            ("SWITCHBOARD_UPDATE_RELEASE_URL", "http://127.0.0.1:9/r.json"),
            ("SWITCHBOARD_UPDATE_ALLOW_HTTP_LOOPBACK", "true"),
        ],
    );
    assert!(loopback.is_ok(), "{loopback:?}");
}

#[test]
fn the_update_section_checks_the_public_key_the_restart_mode_and_the_timeout() {
    let key = "/BFcOJv2Gux6ML39Clc9eitWD3I8TbomMSvJst5xTGU=";
    let config = load_with(None, &[("SWITCHBOARD_UPDATE_PUBLIC_KEY", key), ("SWITCHBOARD_UPDATE_RESTART", "exit")])
        .expect("valid");
    assert_eq!(config.update.public_key_bytes().map(|k| k.len()), Some(32));
    assert_eq!(config.update.restart, gateway_host::config::RestartMode::Exit);
    for (name, value) in [
        ("SWITCHBOARD_UPDATE_PUBLIC_KEY", "not base64!"),
        ("SWITCHBOARD_UPDATE_PUBLIC_KEY", "AAAA"),
        ("SWITCHBOARD_UPDATE_RESTART", "fork"),
        ("SWITCHBOARD_UPDATE_HEALTH_TIMEOUT_SECONDS", "1"),
    ] {
        let error = load_with(None, &[(name, value)]).expect_err(name);
        assert!(error.to_string().contains(name), "{name}={value}: {error}");
    }
}

#[test]
fn a_release_url_token_never_shows_in_debug_output() {
    let config = load_with(
        None,
        &[("SWITCHBOARD_UPDATE_RELEASE_URL", "https://mirror.example/r/release.json?token=s3cret-tok")],
    )
    .expect("valid");
    let shown = format!("{config:?}");
    assert!(!shown.contains("s3cret"), "{shown}");
    assert!(shown.contains("mirror.example/r/release.json?[REDACTED]"), "{shown}");
}

#[test]
fn the_tracing_section_validates_the_otlp_endpoint_headers_and_ratio() {
    let off = load_with(None, &[]).expect("defaults");
    assert_eq!(off.tracing.otlp_endpoint, None);
    assert_eq!(off.tracing.traces_url(), None);
    assert_eq!(off.tracing.service_name, "switchboard");
    let on = load_with(
        None,
        &[
            ("SWITCHBOARD_TRACING_OTLP_ENDPOINT", "http://collector:4318/"),
            ("SWITCHBOARD_TRACING_OTLP_HEADERS", "x-api-key=secret-value-1234, X-Tenant = a"),
            ("SWITCHBOARD_TRACING_SAMPLE_RATIO", "0.25"),
        ],
    )
    .expect("valid");
    assert_eq!(on.tracing.traces_url().as_deref(), Some("http://collector:4318/v1/traces"));
    assert_eq!(
        on.tracing.otlp_header_pairs(),
        Some(vec![("x-api-key".to_owned(), "secret-value-1234".to_owned()), ("x-tenant".to_owned(), "a".to_owned())])
    );
    assert!((on.tracing.sample_ratio - 0.25).abs() < f64::EPSILON);
    let shown = format!("{on:?}");
    assert!(!shown.contains("secret-value-1234"), "{shown}");
    let full = load_with(None, &[("SWITCHBOARD_TRACING_OTLP_ENDPOINT", "https://c.example/v1/traces")]).expect("valid");
    assert_eq!(full.tracing.traces_url().as_deref(), Some("https://c.example/v1/traces"), "used as is");
    let refused = [
        ("SWITCHBOARD_TRACING_OTLP_ENDPOINT", "collector:4318", "tracing.otlp_endpoint"),
        ("SWITCHBOARD_TRACING_OTLP_ENDPOINT", "grpc://collector:4317", "tracing.otlp_endpoint"),
        ("SWITCHBOARD_TRACING_OTLP_HEADERS", "no-equals-sign", "tracing.otlp_headers"),
        ("SWITCHBOARD_TRACING_SAMPLE_RATIO", "1.5", "tracing.sample_ratio"),
        ("SWITCHBOARD_TRACING_SERVICE_NAME", " ", "tracing.service_name"),
    ];
    for (name, value, key) in refused {
        let error = load_with(None, &[(name, value)]).expect_err(value);
        assert!(error.to_string().contains(key), "{value}: {error}");
    }
}

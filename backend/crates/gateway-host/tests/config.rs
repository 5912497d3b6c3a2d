//! The loader (defaults → file → `SWITCHBOARD_*` environment, errors naming the key and the
//! variable) over a root of the host's own sections; the binary's full root is tested in
//! `apps/gateway/tests/config.rs`.

use std::io::Write;

use gateway_core::config::InvalidConfig;
use gateway_host::ConfigRoot;
use gateway_host::config::{
    ConfigError, ConfigSource, LogConfig, LogFormat, ServerConfig, TracingConfig, UpdateConfig, WorkersConfig,
    env_name, load,
};
use serde::{Deserialize, Serialize};

/// A root like the binary's: the host's sections, and one section of another crate whose rule
/// reports a key relative to itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Root {
    server: ServerConfig,
    log: LogConfig,
    workers: WorkersConfig,
    update: UpdateConfig,
    tracing: TracingConfig,
    other: Other,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Other {
    limit: u32,
}

impl Default for Other {
    fn default() -> Self {
        Self { limit: 5 }
    }
}

impl ConfigRoot for Root {
    fn validate(&self) -> Result<(), ConfigError> {
        self.server.validate()?;
        self.workers.validate()?;
        self.update.validate()?;
        self.tracing.validate()?;
        if self.other.limit == 0 {
            return Err(InvalidConfig::new("limit", "must be at least 1").under("other").into());
        }
        Ok(())
    }
}

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

fn load_with(yaml: Option<&str>, env: &[(&str, &str)]) -> Result<Root, ConfigError> {
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
    assert_eq!(config, Root::default());
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
fn another_crates_rule_is_named_from_the_root_with_its_variable() {
    let err = load_with(None, &[("SWITCHBOARD_OTHER_LIMIT", "0")]).expect_err("zero");
    assert_eq!(err.key(), Some("other.limit"));
    assert_eq!(err.to_string(), "invalid value for `other.limit` (from SWITCHBOARD_OTHER_LIMIT): must be at least 1");
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

use std::process::{Command, Output};

fn switchboard(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.env_clear().args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("the switchboard binary runs")
}

fn stderr_line(output: &Output) -> String {
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "expected exactly one line on stderr, got: {text}");
    lines[0].to_owned()
}

fn config_file(text: &str) -> tempfile_path::TempPath {
    tempfile_path::write(text)
}

#[test]
fn an_unknown_key_in_the_file_exits_2_naming_the_key() {
    let file = config_file("server:\n  listen: 127.0.0.1:0\n  listne: 127.0.0.1:1\n");
    let output = switchboard(&["serve", "--config", file.path()], &[]);
    assert_eq!(output.status.code(), Some(2));
    let line = stderr_line(&output);
    assert!(line.contains("`server.listne`"), "{line}");
}

#[test]
fn an_unknown_section_exits_2_naming_it() {
    let file = config_file("sevrer:\n  listen: 127.0.0.1:0\n");
    let output = switchboard(&["--config", file.path()], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_line(&output).contains("`sevrer`"));
}

#[test]
fn an_invalid_value_exits_2_naming_the_key() {
    let file = config_file("server:\n  drain_timeout_seconds: soon\n");
    let output = switchboard(&["serve", "-c", file.path()], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_line(&output).contains("`server.drain_timeout_seconds`"));
}

#[test]
fn an_invalid_environment_value_names_the_key_and_the_variable() {
    let output = switchboard(&["serve"], &[("SWITCHBOARD_SERVER_LISTEN", "not-an-address")]);
    assert_eq!(output.status.code(), Some(2));
    let line = stderr_line(&output);
    assert!(line.contains("`server.listen`") && line.contains("SWITCHBOARD_SERVER_LISTEN"), "{line}");
}

#[test]
fn an_unknown_variable_in_a_known_section_is_refused() {
    let output = switchboard(&["serve"], &[("SWITCHBOARD_DATABASE_URI", "postgres://x")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_line(&output).contains("SWITCHBOARD_DATABASE_URI"));
}

#[test]
fn cross_field_rules_name_the_key() {
    let output = switchboard(&["serve"], &[("SWITCHBOARD_DATABASE_URL", "postgres://127.0.0.1/x")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_line(&output).contains("`redis.url`"));
}

#[test]
fn a_missing_config_file_exits_2() {
    let output = switchboard(&["serve"], &[("SWITCHBOARD_CONFIG", "/nonexistent/switchboard.yaml")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_line(&output).contains("/nonexistent/switchboard.yaml"));
}

/// Upstream URLs that pass a prefix check but that the upstream client cannot use, or that the
/// SSRF guard refuses: `serve` must stop at start-up naming the key, not run with an upstream
/// every call fails against (which cools every account down).
#[test]
fn a_bad_upstream_url_exits_2_naming_its_key() {
    let cases = [
        (
            "SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL",
            "https://b\u{fc}cher.example/backend-api",
            "providers.openai.backend_url",
        ),
        ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL", "https://chatgpt.com/backend api", "providers.openai.backend_url"),
        ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL", "https://", "providers.openai.backend_url"),
        ("SWITCHBOARD_PROVIDERS_OPENAI_AUTH_URL", "http://auth.example.com", "providers.openai.auth_url"),
        ("SWITCHBOARD_PROVIDERS_OPENAI_AUTH_URL", "https://user:pw@auth.openai.com", "providers.openai.auth_url"),
        (
            "SWITCHBOARD_PROVIDERS_OPENAI_APPCAST_URL",
            "http://appcast.example.com/feed.xml",
            "providers.openai.appcast_url",
        ),
        (
            "SWITCHBOARD_PROVIDERS_OPENAI_APPCAST_URL",
            "https://appcast.example.com/feed.xml#latest",
            "providers.openai.appcast_url",
        ),
    ];
    for (variable, value, key) in cases {
        // Storage is configured (and unreachable): the URL must be refused before it is needed.
        let output = switchboard(
            &["serve"],
            &[
                ("SWITCHBOARD_SERVER_LISTEN", "127.0.0.1:0"),
                ("SWITCHBOARD_DATABASE_URL", "postgres://127.0.0.1:9/none"),
                ("SWITCHBOARD_REDIS_URL", "redis://127.0.0.1:9"),
                (variable, value),
            ],
        );
        assert_eq!(output.status.code(), Some(2), "{variable}={value}: {}", String::from_utf8_lossy(&output.stderr));
        let line = stderr_line(&output);
        assert!(line.contains(&format!("`{key}`")) && line.contains(variable), "{variable}={value}: {line}");
    }
}

#[test]
fn plain_http_upstream_urls_need_the_loopback_switch() {
    let output = switchboard(
        &["serve"],
        &[
            ("SWITCHBOARD_SERVER_LISTEN", "127.0.0.1:0"),
            ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL", "http://127.0.0.1:9"),
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    let line = stderr_line(&output);
    assert!(line.contains("`providers.openai.backend_url`") && line.contains("allow_http_loopback"), "{line}");
}

#[test]
fn version_prints_the_package_version() {
    let output = switchboard(&["version"], &[]);
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), format!("switchboard {}", env!("CARGO_PKG_VERSION")));
}

/// A password-like value that must never appear in a refusal.
const PLANTED: &str = "pl4nted-s3cret-9f2c";

fn assert_not_echoed(output: &Output) {
    let all = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(!all.contains(PLANTED), "the refusal echoes a secret: {all}");
}

#[test]
fn refused_database_and_redis_urls_never_echo_their_credentials() {
    let mysql = format!("mysql://app:{PLANTED}@db:3306/x");
    let output = switchboard(&["serve"], &[("SWITCHBOARD_DATABASE_URL", mysql.as_str())]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_line(&output).contains("`database.url`"));
    assert_not_echoed(&output);

    let postgres = format!("postgres://app:{PLANTED}@127.0.0.1:5432/x");
    let redis = format!("memcached://u:{PLANTED}@127.0.0.1");
    let output = switchboard(
        &["serve"],
        &[("SWITCHBOARD_DATABASE_URL", postgres.as_str()), ("SWITCHBOARD_REDIS_URL", redis.as_str())],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_line(&output).contains("`redis.url`"));
    assert_not_echoed(&output);
}

#[test]
fn a_malformed_secret_value_is_named_but_never_echoed() {
    let key = format!("k1:{PLANTED}");
    // Not a JSON array: the variable is named, its value is not shown.
    let output = switchboard(&["serve"], &[("SWITCHBOARD_SECRETS_RETIRED_MASTER_KEYS", key.as_str())]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_line(&output).contains("SWITCHBOARD_SECRETS_RETIRED_MASTER_KEYS"));
    assert_not_echoed(&output);
    // A string where a list belongs, in the file.
    let file = config_file(&format!("secrets:\n  retired_master_keys: \"{key}\"\n"));
    let output = switchboard(&["serve", "--config", file.path()], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_line(&output).contains("`secrets.retired_master_keys`"));
    assert_not_echoed(&output);
    let file = config_file(&format!("database:\n  url: [\"postgres://u:{PLANTED}@h/x\"]\n"));
    let output = switchboard(&["serve", "--config", file.path()], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert_not_echoed(&output);
}

#[tokio::test]
async fn a_refused_upstream_url_never_echoes_its_credentials() {
    let db = test_support::TestDatabase::create().await.expect("test database");
    let key = gateway_store::crypto::MasterKey::generate("k1").expect("key");
    let key = secrecy::ExposeSecret::expose_secret(&key.to_config_value()).to_owned();
    let backend = format!("https://user:{PLANTED}@chatgpt.example.test/backend-api");
    let redis = test_support::redis_url();
    let env = [
        ("SWITCHBOARD_DATABASE_URL", db.url()),
        ("SWITCHBOARD_REDIS_URL", redis.as_str()),
        ("SWITCHBOARD_SECRETS_MASTER_KEY", key.as_str()),
        ("SWITCHBOARD_SERVER_LISTEN", "127.0.0.1:0"),
        ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL", backend.as_str()),
        ("SWITCHBOARD_ADMIN_BOOTSTRAP_PASSWORD", "a-long-enough-password"),
    ];
    // Refused at wiring, before anything listens: the process exits at once.
    let output = switchboard(&["serve"], &env);
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("providers.openai.backend_url") && stderr.contains("credentials"), "{stderr}");
    assert_not_echoed(&output);
    let _ = db.drop_schema().await;
}

/// A temporary file removed on drop, without another dependency.
mod tempfile_path {
    use std::path::PathBuf;

    pub struct TempPath(PathBuf);

    impl TempPath {
        pub fn path(&self) -> &str {
            self.0.to_str().expect("temp paths are UTF-8")
        }
    }

    impl Drop for TempPath {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    pub fn write(text: &str) -> TempPath {
        let path = std::env::temp_dir().join(format!("switchboard-test-{}.yaml", uuid_like()));
        std::fs::write(&path, text).expect("temp dir is writable");
        TempPath(path)
    }

    fn uuid_like() -> String {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        format!("{}-{nanos}", std::process::id())
    }
}

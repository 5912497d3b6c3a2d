//! Mode selection: no `database.url` runs the embedded mode with no services, its files private,
//! one server per data directory, the master key generated once and reused.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Install, mode_of};

#[tokio::test]
async fn with_no_database_url_the_gateway_serves_embedded_with_private_files() {
    let mut install = Install::new().await;
    install.serve().await;
    let health = reqwest::get(format!("{}/healthz", install.url())).await.expect("healthz");
    assert_eq!(health.status(), 200);
    let dir = install.data_dir();
    assert_eq!(mode_of(&dir), 0o700, "the data directory is private");
    assert_eq!(mode_of(&dir.join("master.key")), 0o600, "the generated master key is private");
    assert!(dir.join("switchboard.sqlite").exists(), "the SQLite file is in the data directory");
    let password_file = dir.join("initial-admin-password");
    assert_eq!(mode_of(&password_file), 0o600);
    let password = std::fs::read_to_string(&password_file).expect("password file");
    let log = install.server_log();
    assert!(log.contains(password.trim()), "the password is printed once on stderr too");
    let shown = std::path::absolute(&password_file).expect("absolute");
    assert!(log.contains(&shown.display().to_string()), "the message names the file: {log}");
}

/// Runs `command` to its end or kills it after `limit` (a second server must not keep running).
fn finish_within(mut command: Command, limit: Duration) -> std::process::Output {
    let child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("starts");
    let started = Instant::now();
    let pid = child.id();
    let waiter = std::thread::spawn(move || child.wait_with_output().expect("ends"));
    while !waiter.is_finished() {
        if started.elapsed() > limit {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            panic!("the process still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    waiter.join().expect("waiter")
}

#[tokio::test]
async fn a_second_server_on_the_same_data_directory_is_refused() {
    let mut install = Install::new().await;
    install.serve().await;
    let other_port = test_support::free_port();
    let mut second = install.command();
    second.arg("serve").env("SWITCHBOARD_SERVER_LISTEN", format!("127.0.0.1:{other_port}"));
    let output = finish_within(second, Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("already serving from the data directory"), "{stderr}");
    assert!(stderr.contains("production mode"), "it says what allows several replicas: {stderr}");
    // The first one still serves.
    let health = reqwest::get(format!("{}/healthz", install.url())).await.expect("healthz");
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn the_master_key_is_generated_once_and_reused_across_restarts() {
    let mut install = Install::new().await;
    install.serve().await;
    install.import_account("acct-restart");
    let key = install.cli(&["key", "create", "laptop"], None).trim().to_owned();
    install.wait_key_served(&key).await;
    let master_key = std::fs::read_to_string(install.data_dir().join("master.key")).expect("master key");
    let password = std::fs::read_to_string(install.data_dir().join("initial-admin-password")).expect("password");
    install.stop();

    install.serve().await;
    assert_eq!(std::fs::read_to_string(install.data_dir().join("master.key")).expect("master key"), master_key);
    let again = std::fs::read_to_string(install.data_dir().join("initial-admin-password")).expect("password");
    assert_eq!(again, password, "the first admin is created once");
    // The credential sealed before the restart opens with the reused key: the key is served.
    let response = install.responses(&key, "after the restart").await;
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["output"][0]["content"][0]["text"], "after the restart", "{body}");
}

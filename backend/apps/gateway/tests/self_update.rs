//! The self-update end to end with the real binary: N installed in a temp dir, N+1 published by
//! `release/build` on a local fake release server, the update started from the admin API, the
//! progress read from its event stream, the swap and the in-place restart (same PID), and the
//! automatic rollback when N+1 fails its health check.
//!
//! N+1 is faked (decision 0194): its archive holds a wrapper script that starts a copy of the
//! same binary with `SWITCHBOARD_BUILD_VERSION_OVERRIDE=0.2.0`, so the two report different
//! versions; the download, verification, swap, trial, `exec` and rollback are the product's.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use reqwest::Method;
use serde_json::Value;
use test_support::{free_port, wait_until};

use crate::admin_api::{Admin, PASSWORD};
use crate::gateway::Gateway;

const NEXT: &str = "0.2.0";

/// N at `bin/switchboard` (a copy of the build's binary) and the copy N+1's wrapper starts.
struct Install {
    dir: PathBuf,
    binary: PathBuf,
    real: PathBuf,
    original: Vec<u8>,
}

impl Install {
    fn new(label: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sb-self-update-{label}-{}-{}", std::process::id(), free_port()));
        for sub in ["bin", "real", "release", "wrapper"] {
            std::fs::create_dir_all(dir.join(sub)).expect("dirs");
        }
        let (binary, real) = (dir.join("bin/switchboard"), dir.join("real/switchboard"));
        std::fs::copy(env!("CARGO_BIN_EXE_switchboard"), &binary).expect("install N");
        std::fs::copy(env!("CARGO_BIN_EXE_switchboard"), &real).expect("copy for N+1");
        let original = std::fs::read(&binary).expect("read N");
        Self { dir, binary, real, original }
    }

    /// N+1: a script reporting `NEXT`, with `extra` exported first (to make it fail).
    fn wrapper(&self, extra: &[(&str, &str)]) -> PathBuf {
        let mut text = format!("#!/bin/sh\nexport SWITCHBOARD_BUILD_VERSION_OVERRIDE={NEXT}\n");
        for (name, value) in extra {
            text.push_str(&format!("export {name}='{value}'\n"));
        }
        text.push_str(&format!("exec '{}' \"$@\"\n", self.real.display()));
        let path = self.dir.join("wrapper/switchboard");
        std::fs::write(&path, text).expect("wrapper");
        let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        std::fs::set_permissions(&path, mode).expect("chmod");
        path
    }

    /// `release/build` for this platform; returns the public key when `signed`.
    fn publish(&self, binary: &Path, signed: bool) -> Option<String> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
        let platform = format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH);
        let mut command = Command::new(root.join("release/build"));
        command
            .args(["--version", NEXT, "--out"])
            .arg(self.dir.join("release"))
            .arg("--binary")
            .arg(format!("{platform}={}", binary.display()))
            .env_remove("SWITCHBOARD_RELEASE_SIGNING_KEY");
        if signed {
            let key = self.dir.join("signing.pem");
            let made = Command::new("openssl").args(["genpkey", "-algorithm", "ed25519", "-out"]).arg(&key).status();
            assert!(made.expect("openssl").success());
            command.arg("--sign-key").arg(&key);
        }
        let output = command.output().expect("release/build runs");
        assert!(output.status.success(), "release/build: {}", String::from_utf8_lossy(&output.stderr));
        let stdout = String::from_utf8_lossy(&output.stdout);
        stdout.lines().find_map(|l| l.split_once("update.public_key = ").map(|(_, k)| k.trim().to_owned()))
    }

    fn read(&self, path: &Path) -> Option<Vec<u8>> {
        std::fs::read(path).ok()
    }

    fn previous(&self) -> PathBuf {
        self.dir.join("bin/switchboard.previous")
    }
}

impl Drop for Install {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Serves the files of a directory (the release) on a free loopback port.
struct ReleaseServer {
    url: String,
    task: tokio::task::JoinHandle<()>,
}

impl ReleaseServer {
    async fn start(dir: PathBuf) -> Self {
        let router = axum::Router::new().route(
            "/releases/latest/{name}",
            axum::routing::get(move |axum::extract::Path(name): axum::extract::Path<String>| {
                let path = dir.join(&name);
                async move {
                    match std::fs::read(&path) {
                        Ok(bytes) if !name.contains('/') => Ok(bytes),
                        _ => Err(axum::http::StatusCode::NOT_FOUND),
                    }
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/releases/latest/release.json", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { url, task }
    }
}

impl Drop for ReleaseServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn start_gateway(install: &Install, release: &ReleaseServer, public_key: Option<&str>, timeout: &str) -> Gateway {
    let mut env = vec![
        ("SWITCHBOARD_ADMIN_BOOTSTRAP_PASSWORD", PASSWORD),
        ("SWITCHBOARD_UPDATE_RELEASE_URL", release.url.as_str()),
        ("SWITCHBOARD_UPDATE_ALLOW_HTTP_LOOPBACK", "true"),
        ("SWITCHBOARD_UPDATE_HEALTH_TIMEOUT_SECONDS", timeout),
        // The test machines are containers themselves; N lives outside any image here.
        ("SWITCHBOARD_UPDATE_ALLOW_IN_CONTAINER", "true"),
    ];
    if let Some(key) = public_key {
        env.push(("SWITCHBOARD_UPDATE_PUBLIC_KEY", key));
    }
    Gateway::start_program(install.binary.clone(), vec![], &env).await
}

async fn healthz_version(gateway: &Gateway) -> Option<String> {
    let response = gateway.client().get(format!("{}/healthz", gateway.url)).send().await.ok()?;
    let body: Value = response.json().await.ok()?;
    body["version"].as_str().map(str::to_owned)
}

/// Opens the progress stream before the update starts (it waits up to 10 s for a run) and
/// collects its `progress` events until it ends.
async fn follow_progress(admin: &Admin) -> tokio::task::JoinHandle<Vec<Value>> {
    let client = reqwest::Client::builder().no_proxy().build().expect("client");
    let cookie = format!("sb_admin_session={}", admin.cookie.clone().expect("session"));
    let mut response = client
        .get(format!("{}/system/update/events?waitSeconds=10", admin.base))
        .header("cookie", cookie)
        .send()
        .await
        .expect("the stream opens");
    assert_eq!(response.status(), 200);
    tokio::spawn(async move {
        let mut text = String::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        text.lines().filter_map(|l| l.strip_prefix("data: ")).filter_map(|d| serde_json::from_str(d).ok()).collect()
    })
}

async fn system_actions(gateway: &Gateway) -> Vec<(String, Value)> {
    let rows: Vec<(String, Value)> =
        sqlx::query_as("SELECT action, details FROM admin_audit_events WHERE action LIKE 'system.%' ORDER BY id")
            .fetch_all(&gateway.pool().await)
            .await
            .expect("audit rows");
    rows
}

/// `GET /system/update`, or `None` while the process restarts (connection refused).
async fn update_view(admin: &Admin) -> Option<Value> {
    let client = reqwest::Client::builder().no_proxy().build().ok()?;
    let cookie = format!("sb_admin_session={}", admin.cookie.clone()?);
    let response = client.get(format!("{}/system/update", admin.base)).header("cookie", cookie).send().await.ok()?;
    response.json().await.ok()
}

/// `/proc/<pid>/exe`: which file the process now runs.
fn running_file(pid: u32) -> PathBuf {
    std::fs::read_link(format!("/proc/{pid}/exe")).expect("the process runs")
}

#[tokio::test]
async fn an_update_from_n_to_n_plus_1_swaps_the_binary_and_restarts_in_place() {
    let install = Install::new("ok");
    let public_key = install.publish(&install.wrapper(&[]), true).expect("signed release");
    let release = ReleaseServer::start(install.dir.join("release")).await;
    let gateway = start_gateway(&install, &release, Some(&public_key), "90").await;
    let pid = gateway.pid().expect("running");
    assert_eq!(healthz_version(&gateway).await.as_deref(), Some(env!("CARGO_PKG_VERSION")));

    let admin = Admin::login(&gateway).await;
    let check = admin.ok("/system/update").await;
    assert_eq!(check["available"], true, "{check}");
    assert_eq!(check["updateAvailable"], true, "{check}");
    assert_eq!(check["latest"]["version"], NEXT);
    assert_eq!(
        (check["latest"]["signed"].clone(), check["signatureRequired"].clone()),
        (Value::Bool(true), Value::Bool(true))
    );

    let progress = follow_progress(&admin).await;
    let started = admin.send(Method::POST, "/system/update", None).await;
    assert_eq!(started.status, 202, "{}", started.text);
    assert_eq!(started.json()["toVersion"], NEXT);
    let events = tokio::time::timeout(Duration::from_secs(60), progress).await.expect("the stream ends").expect("task");
    let phases: Vec<&str> = events.iter().filter_map(|e| e["phase"].as_str()).collect();
    for phase in ["checking", "downloading", "verifying", "installing", "restarting"] {
        assert!(phases.contains(&phase), "{phase} missing from {phases:?}");
    }
    assert_eq!(phases.last(), Some(&"restarting"));

    wait_until("N+1 to serve", Duration::from_secs(120), || async {
        (healthz_version(&gateway).await.as_deref() == Some(NEXT)).then_some(())
    })
    .await
    .unwrap_or_else(|e| panic!("{e}; log:\n{}", gateway.log()));
    assert_eq!(gateway.pid(), Some(pid));
    assert_eq!(running_file(pid), install.real, "the same process now runs N+1 (exec in place)");
    assert_eq!(
        install.read(&install.binary),
        Some(std::fs::read(install.dir.join("wrapper/switchboard")).expect("wrapper"))
    );
    assert_eq!(install.read(&install.previous()), Some(install.original.clone()), "N is kept for a rollback");

    let after = admin.ok("/system/update").await;
    assert_eq!(after["currentVersion"], NEXT, "{after}");
    assert_eq!(after["updateAvailable"], false);
    let last = &after["lastOutcome"];
    assert_eq!((last["action"].as_str(), last["result"].as_str()), (Some("update"), Some("installed")), "{after}");
    assert_eq!(
        (last["fromVersion"].as_str(), last["toVersion"].as_str()),
        (Some(env!("CARGO_PKG_VERSION")), Some(NEXT))
    );
    let actions: Vec<String> = system_actions(&gateway).await.into_iter().map(|(a, _)| a).collect();
    assert_eq!(actions, ["system.update", "system.update_installed"]);
    assert!(gateway.log().contains("passed its health check"));

    // Already up to date now; a restart keeps the version and the PID.
    let again = admin.send(Method::POST, "/system/update", None).await;
    assert_eq!((again.status.as_u16(), again.code()), (409, "already_up_to_date".to_owned()), "{}", again.text);
    let restarted = admin.send(Method::POST, "/system/restart", None).await;
    assert_eq!(restarted.status, 202, "{}", restarted.text);
    wait_until("the restarted process to log in again", Duration::from_secs(120), || async {
        let actions = system_actions(&gateway).await;
        let ready = gateway.client().get(format!("{}/readyz", gateway.url)).send().await.ok()?;
        (ready.status() == 200 && actions.iter().any(|(a, _)| a == "system.restart")).then_some(())
    })
    .await
    .expect("restart");
    assert_eq!(gateway.pid(), Some(pid));
    assert_eq!(healthz_version(&gateway).await.as_deref(), Some(NEXT));
}

#[tokio::test]
async fn an_n_plus_1_that_fails_its_health_check_is_rolled_back_automatically() {
    let install = Install::new("rollback");
    // N+1 starts, but with a Redis nobody answers on: it never becomes ready.
    let dead_redis = format!("redis://127.0.0.1:{}", free_port());
    install.publish(&install.wrapper(&[("SWITCHBOARD_REDIS_URL", &dead_redis)]), false);
    let release = ReleaseServer::start(install.dir.join("release")).await;
    let gateway = start_gateway(&install, &release, None, "15").await;
    let pid = gateway.pid().expect("running");
    let admin = Admin::login(&gateway).await;

    let started = admin.send(Method::POST, "/system/update", None).await;
    assert_eq!(started.status, 202, "{}", started.text);
    let after = wait_until("the rollback to be reported", Duration::from_secs(180), || async {
        let view = update_view(&admin).await?;
        (view["lastOutcome"]["result"] == "rolled_back").then_some(view)
    })
    .await
    .unwrap_or_else(|e| panic!("{e}; log:\n{}", gateway.log()));

    assert_eq!(after["currentVersion"], env!("CARGO_PKG_VERSION"), "{after}");
    let reason = after["lastOutcome"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("not ready within 15 s") || reason.contains("exited"), "{reason}");
    assert_eq!(gateway.pid(), Some(pid));
    assert_eq!(running_file(pid), install.binary, "N runs again from its own path, same process");
    assert_eq!(install.read(&install.binary), Some(install.original.clone()), "N is back in place");
    assert!(!install.previous().exists(), "the failed N+1 is not kept");
    assert_eq!(healthz_version(&gateway).await.as_deref(), Some(env!("CARGO_PKG_VERSION")));
    let audits = system_actions(&gateway).await;
    let actions: Vec<&str> = audits.iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(actions, ["system.update", "system.update_rolled_back"]);
    assert!(audits[1].1["reason"].as_str().is_some_and(|r| r == reason), "{:?}", audits[1]);
    assert!(gateway.log().contains("failed its health check; rolling back"));
}

#[tokio::test]
async fn update_refusals_are_clear_and_change_nothing() {
    let install = Install::new("refusals");
    install.publish(&install.wrapper(&[]), false);
    let release = ReleaseServer::start(install.dir.join("release")).await;
    let mut env = vec![
        ("SWITCHBOARD_ADMIN_BOOTSTRAP_PASSWORD", PASSWORD),
        ("SWITCHBOARD_UPDATE_RELEASE_URL", release.url.as_str()),
        ("SWITCHBOARD_UPDATE_ALLOW_HTTP_LOOPBACK", "true"),
        ("container", "docker"),
    ];
    let gateway = Gateway::start_program(install.binary.clone(), vec![], &env).await;
    let admin = Admin::login(&gateway).await;
    let view = admin.ok("/system/update").await;
    assert_eq!(view["available"], false);
    assert!(view["unavailableReason"].as_str().is_some_and(|r| r.contains("docker compose pull")), "{view}");
    let refused = admin.send(Method::POST, "/system/update", None).await;
    assert_eq!((refused.status.as_u16(), refused.code()), (409, "update_unavailable".to_owned()), "{}", refused.text);
    assert!(refused.json()["error"]["message"].as_str().is_some_and(|m| m.contains("docker compose pull")));
    let rollback = admin.send(Method::POST, "/system/rollback", None).await;
    assert_eq!(rollback.status, 409, "{}", rollback.text);
    assert_eq!(install.read(&install.binary), Some(install.original.clone()));
    assert!(system_actions(&gateway).await.is_empty(), "a refusal is not audited as an action");
    drop(admin);
    drop(gateway);

    env.retain(|(k, _)| *k != "container" && *k != "SWITCHBOARD_UPDATE_RELEASE_URL");
    env.push(("SWITCHBOARD_UPDATE_RELEASE_URL", "http://127.0.0.1:9/nothing/release.json"));
    env.push(("SWITCHBOARD_UPDATE_ALLOW_IN_CONTAINER", "true"));
    let gateway = Gateway::start_program(install.binary.clone(), vec![], &env).await;
    let admin = Admin::login(&gateway).await;
    let view = admin.ok("/system/update").await;
    assert!(view["checkError"].as_str().is_some_and(|e| e.contains("release.json")), "{view}");
    let unreachable = admin.send(Method::POST, "/system/update", None).await;
    assert_eq!((unreachable.status.as_u16(), unreachable.code()), (502, "release_source_failed".to_owned()));
    assert_eq!(admin.ok("/system/update").await["phase"], "failed");
    let events = admin.get("/system/update/events").await;
    assert!(events.text.contains("\"phase\":\"idle\""), "nothing runs: one idle event: {}", events.text);
}

//! The updater against a fake release server: what it installs, what it refuses, and that a
//! failure changes nothing on disk.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair};
use base64::Engine;
use gateway_host::Shutdown;
use gateway_host::config::UpdateConfig;
use gateway_host::update::{HostFacts, OutcomeResult, Phase, Requester, UpdateAudit, UpdateOutcome, Updater};

use super::fake_release::{FakeReleaseServer, Release};

/// A stand-in binary: a script that answers `version` like the gateway does.
fn script(version: &str) -> Vec<u8> {
    format!("#!/bin/sh\necho \"switchboard {version}\"\n").into_bytes()
}

struct Setup {
    dir: PathBuf,
    binary: PathBuf,
    shutdown: Shutdown,
    updater: Updater,
    audits: Arc<Mutex<Vec<UpdateOutcome>>>,
}

struct Recorder(Arc<Mutex<Vec<UpdateOutcome>>>);

#[async_trait]
impl UpdateAudit for Recorder {
    async fn record(&self, outcome: &UpdateOutcome) -> Result<(), String> {
        self.0.lock().expect("lock").push(outcome.clone());
        Ok(())
    }
}

fn setup(config: UpdateConfig, env: &[(&str, &str)]) -> Setup {
    let dir = std::env::temp_dir().join(format!("sb-updater-{}-{}", std::process::id(), test_support::free_port()));
    std::fs::create_dir_all(dir.join("bin")).expect("dir");
    let binary = dir.join("bin/switchboard");
    std::fs::write(&binary, script(gateway_host::build_info::version())).expect("binary");
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).expect("mode");
    let env: Vec<(String, String)> = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    let host = HostFacts::from_parts(&dir, &env, Ok(binary.clone()), Vec::new());
    let shutdown = Shutdown::new(Duration::from_secs(1));
    let updater = Updater::new(&config, &dir.join("data"), shutdown.clone(), host, outbound()).expect("updater");
    let audits = Arc::new(Mutex::new(Vec::new()));
    updater.set_audit(Arc::new(Recorder(audits.clone())));
    Setup { dir, binary, shutdown, updater, audits }
}

/// The outbound client the composition root hands the updater: the one transport, no proxy.
fn outbound() -> gateway_transport::HttpClient {
    let roots = gateway_transport::TlsRoots::new(None).expect("TLS roots");
    gateway_transport::HttpClient::new(gateway_transport::Connector::new(roots, Duration::from_secs(10)))
}

fn config(server: &FakeReleaseServer, public_key: Option<&[u8]>) -> UpdateConfig {
    UpdateConfig {
        release_url: Some(server.url()),
        allow_http_loopback: true,
        public_key: public_key.map(|k| base64::engine::general_purpose::STANDARD.encode(k)),
        ..UpdateConfig::default()
    }
}

fn admin() -> Requester {
    Requester { user_id: Some(1), name: "admin".into() }
}

fn key_pair() -> Ed25519KeyPair {
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).expect("key");
    Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).expect("pair")
}

/// Waits until the run ends (restarting or failed) and returns its events' phases and messages.
async fn finished(updater: &Updater) -> Vec<(Phase, String)> {
    let mut rx = updater.subscribe();
    let progress = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let now = rx.borrow_and_update().clone();
            if matches!(now.phase(), Phase::Restarting | Phase::Failed) {
                return now;
            }
            rx.changed().await.expect("board alive");
        }
    })
    .await
    .expect("the run ends");
    progress.events.into_iter().map(|e| (e.phase, e.message)).collect()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).expect("dir").flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[tokio::test]
async fn an_update_verifies_and_swaps_the_binary_keeping_the_previous_one_then_asks_for_a_restart() {
    let key = key_pair();
    let server = FakeReleaseServer::start(Release::new("0.2.0", &script("0.2.0"), Some(&key))).await;
    let s = setup(config(&server, Some(key.public_key().as_ref())), &[]);
    let old = std::fs::read(&s.binary).expect("old");

    let check = s.updater.check().await.expect("check");
    assert!(check.update_available && check.signed, "{check:?}");
    assert_eq!(check.latest_version, "0.2.0");
    let started = s.updater.start_update(admin()).await.expect("starts");
    assert_eq!(started.latest_version, "0.2.0");
    let events = finished(&s.updater).await;
    let phases: Vec<Phase> = events.iter().map(|(p, _)| *p).collect();
    for phase in [Phase::Checking, Phase::Downloading, Phase::Verifying, Phase::Installing, Phase::Restarting] {
        assert!(phases.contains(&phase), "{phase:?} missing from {events:?}");
    }
    assert!(events.iter().any(|(_, m)| m.contains("signed by update.public_key")), "{events:?}");

    assert_eq!(std::fs::read(&s.binary).expect("new"), script("0.2.0"), "the new binary is installed");
    assert_eq!(std::fs::read(s.dir.join("bin/switchboard.previous")).expect("previous"), old, "the old one is kept");
    assert_eq!(files_in(&s.dir.join("bin")), ["switchboard", "switchboard.previous"], "no download left behind");
    assert!(s.shutdown.is_triggered(), "the process drains to restart");
    let handover = s.updater.take_handover().expect("a hand-over waits for the drain");
    assert!(handover.trial);
    assert_eq!(handover.expected_version.as_deref(), Some("0.2.0"));
    assert_eq!(s.updater.previous_version().as_deref(), Some(gateway_host::build_info::version()));
    let last = s.updater.last_outcome().expect("outcome");
    assert_eq!((last.result, last.to_version.as_deref()), (OutcomeResult::Pending, Some("0.2.0")));
    assert!(s.audits.lock().expect("lock").is_empty(), "the outcome is audited once the trial decided");
    let _ = std::fs::remove_dir_all(&s.dir);
}

#[tokio::test]
async fn a_checksum_mismatch_changes_nothing_and_is_audited_as_failed() {
    let server = FakeReleaseServer::start(Release::new("0.2.0", &script("0.2.0"), None)).await;
    let asset = format!("switchboard-0.2.0-{}.tar.gz", super::fake_release::platform());
    let mut archive = server.get(&asset);
    let last = archive.len() - 1;
    archive[last] ^= 0xff;
    server.replace(&asset, archive);
    let manifest: serde_json::Value = serde_json::from_slice(&server.get("release.json")).expect("json");
    let mut manifest = manifest;
    manifest["assets"][0]["sha256"] = serde_json::Value::Null;
    server.replace("release.json", serde_json::to_vec(&manifest).expect("json"));
    let s = setup(config(&server, None), &[]);
    let old = std::fs::read(&s.binary).expect("old");

    s.updater.start_update(admin()).await.expect("starts");
    let events = finished(&s.updater).await;
    let (phase, message) = events.last().cloned().expect("events");
    assert_eq!(phase, Phase::Failed);
    assert!(message.contains("SHA-256") && message.contains("does not match"), "{message}");
    assert_eq!(std::fs::read(&s.binary).expect("binary"), old, "the binary is untouched");
    assert_eq!(files_in(&s.dir.join("bin")), ["switchboard"], "nothing staged is left");
    assert!(!s.shutdown.is_triggered() && s.updater.take_handover().is_none());
    let audits = s.audits.lock().expect("lock").clone();
    assert_eq!(audits.len(), 1);
    assert_eq!(audits[0].result, OutcomeResult::Failed);
    assert!(s.updater.last_outcome().is_some_and(|o| o.audited));
    // The updater is free again: the next attempt runs (and fails the same way).
    s.updater.start_update(admin()).await.expect("a second attempt may start");
    finished(&s.updater).await;
    let _ = std::fs::remove_dir_all(&s.dir);
}

#[tokio::test]
async fn with_a_public_key_an_unsigned_or_wrongly_signed_release_is_refused() {
    let key = key_pair();
    let public = key.public_key().as_ref().to_vec();
    let unsigned = FakeReleaseServer::start(Release::new("0.2.0", &script("0.2.0"), None)).await;
    let s = setup(config(&unsigned, Some(&public)), &[]);
    s.updater.start_update(admin()).await.expect("starts");
    let (phase, message) = finished(&s.updater).await.pop().expect("events");
    assert_eq!(phase, Phase::Failed);
    assert!(message.contains("not signed"), "{message}");
    assert!(!s.dir.join("bin/switchboard.previous").exists());
    let _ = std::fs::remove_dir_all(&s.dir);

    let forged = FakeReleaseServer::start(Release::new("0.2.0", &script("0.2.0"), Some(&key_pair()))).await;
    let s = setup(config(&forged, Some(&public)), &[]);
    s.updater.start_update(admin()).await.expect("starts");
    let (phase, message) = finished(&s.updater).await.pop().expect("events");
    assert_eq!(phase, Phase::Failed);
    assert!(message.contains("does not verify"), "{message}");
    assert!(!s.dir.join("bin/switchboard.previous").exists());
    let _ = std::fs::remove_dir_all(&s.dir);
}

#[tokio::test]
async fn a_binary_that_does_not_report_the_promised_version_is_not_swapped_in() {
    let server = FakeReleaseServer::start(Release::new("0.2.0", &script("0.3.0"), None)).await;
    let s = setup(config(&server, None), &[]);
    s.updater.start_update(admin()).await.expect("starts");
    let (phase, message) = finished(&s.updater).await.pop().expect("events");
    assert_eq!(phase, Phase::Failed);
    assert!(message.contains("says it is 0.3.0"), "{message}");
    assert_eq!(files_in(&s.dir.join("bin")), ["switchboard"]);
    let _ = std::fs::remove_dir_all(&s.dir);
}

#[tokio::test]
async fn refusals_say_what_to_do_instead() {
    let current = gateway_host::build_info::version();
    let same = FakeReleaseServer::start(Release::new(current, &script(current), None)).await;
    let s = setup(config(&same, None), &[]);
    let error = s.updater.start_update(admin()).await.expect_err("up to date");
    assert_eq!(error.code(), "already_up_to_date");
    assert!(error.to_string().contains(&format!("running {current}")), "{error}");
    assert!(!s.shutdown.is_triggered());
    let _ = std::fs::remove_dir_all(&s.dir);

    let newer = FakeReleaseServer::start(Release::new("0.2.0", &script("0.2.0"), None)).await;
    let s = setup(config(&newer, None), &[("container", "oci")]);
    let error = s.updater.start_update(admin()).await.expect_err("in a container");
    assert_eq!(error.code(), "update_unavailable");
    assert!(error.to_string().contains("docker compose pull"), "{error}");
    let _ = std::fs::remove_dir_all(&s.dir);
    let allowed = UpdateConfig { allow_in_container: true, ..config(&newer, None) };
    let s = setup(allowed, &[("container", "oci")]);
    assert!(s.updater.availability().is_ok(), "update.allow_in_container lifts the container refusal");
    let _ = std::fs::remove_dir_all(&s.dir);

    let s = setup(UpdateConfig::default(), &[]);
    let error = s.updater.start_update(admin()).await.expect_err("no source");
    assert!(error.to_string().contains("update.release_url"), "{error}");
    assert_eq!(s.updater.start_rollback(admin()).expect_err("nothing to roll back to").code(), "no_previous_version");
    let _ = std::fs::remove_dir_all(&s.dir);
}

#[tokio::test]
async fn a_rollback_exchanges_the_binaries_and_hands_over_to_a_trial_of_the_previous_version() {
    let server = FakeReleaseServer::start(Release::new("0.2.0", &script("0.2.0"), None)).await;
    let s = setup(config(&server, None), &[]);
    assert_eq!(s.updater.start_rollback(admin()).expect_err("no previous yet").code(), "no_previous_version");
    std::fs::write(s.dir.join("bin/switchboard.previous"), script("0.0.9")).expect("previous");
    let current = std::fs::read(&s.binary).expect("current");
    let target = s.updater.start_rollback(admin()).expect("rollback starts");
    assert_eq!(target, "unknown", "the state file did not record the previous version");
    assert_eq!(std::fs::read(&s.binary).expect("binary"), script("0.0.9"));
    assert_eq!(std::fs::read(s.dir.join("bin/switchboard.previous")).expect("previous"), current);
    let handover = s.updater.take_handover().expect("hand-over");
    assert!(handover.trial && handover.expected_version.is_none());
    assert!(s.shutdown.is_triggered());
    assert_eq!(
        s.updater.start_restart(admin()).expect_err("the process is already restarting").code(),
        "update_in_progress"
    );
    let _ = std::fs::remove_dir_all(&s.dir);
}

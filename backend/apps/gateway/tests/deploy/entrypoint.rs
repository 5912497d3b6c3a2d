//! The image's entrypoint without a Docker engine: the runtime stage's layout rebuilt in a temp
//! dir (the binary at `/usr/local/bin/switchboard`, the `/data` volume owned by 10001, every
//! other directory read-only), the binary started exactly as `ENTRYPOINT` + `CMD` with the
//! stage's `ENV` plus compose's gateway environment, as uid/gid 10001 when the test runs as root,
//! and the `HEALTHCHECK` command polled until it passes.
//!
//! What differs from a container, and why: absolute paths of the layout (`/data`,
//! `/usr/local/bin`) are mapped into the temp dir (no chroot); PostgreSQL and Redis are the test
//! services instead of compose's `postgres`/`redis` hosts; the port is a free one instead of 8080;
//! the upstream points at a closed loopback port (no network) and the Redis prefix is the test's.

use std::collections::BTreeSet;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use test_support::{TestDatabase, free_port, redis_url, unique_prefix, wait_until};

use super::files::{Dockerfile, yaml};

const IMAGE_UID: u32 = 10001;

/// The runtime stage rebuilt under a temp dir.
struct Layout {
    root: PathBuf,
}

impl Layout {
    /// `/usr/local/bin/switchboard` → `<root>/usr/local/bin/switchboard`.
    fn path(&self, image_path: &str) -> PathBuf {
        self.root.join(image_path.trim_start_matches('/'))
    }

    fn build(binary: &str, volume: &str, as_image_user: bool) -> Self {
        let root = std::env::temp_dir().join(format!("switchboard-image-{}-{}", std::process::id(), free_port()));
        let layout = Self { root };
        let target = layout.path(binary);
        std::fs::create_dir_all(target.parent().expect("binary has a directory")).expect("layout dirs");
        std::fs::copy(env!("CARGO_BIN_EXE_switchboard"), &target).expect("copy the binary");
        let data = layout.path(volume);
        std::fs::create_dir_all(&data).expect("volume dir");
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o700)).expect("volume mode");
        if as_image_user {
            std::os::unix::fs::chown(&data, Some(IMAGE_UID), Some(IMAGE_UID)).expect("chown the volume");
        }
        let tmp = layout.path("/tmp");
        std::fs::create_dir_all(&tmp).expect("tmpfs dir");
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777)).expect("tmp mode");
        layout.read_only(&layout.root.clone(), &[data, tmp]);
        layout
    }

    /// Everything under `dir` but `writable` becomes read-only (directories 0555, files 0555).
    fn read_only(&self, dir: &Path, writable: &[PathBuf]) {
        for entry in std::fs::read_dir(dir).expect("read layout") {
            let path = entry.expect("entry").path();
            if writable.contains(&path) {
                continue;
            }
            if path.is_dir() {
                self.read_only(&path, writable);
            }
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o555)).expect("chmod");
        }
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).expect("chmod dir");
    }

    /// Every path under the root except the writable ones (to show nothing was written there).
    fn files_outside(&self, writable: &[PathBuf]) -> BTreeSet<PathBuf> {
        fn walk(dir: &Path, writable: &[PathBuf], out: &mut BTreeSet<PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if writable.contains(&path) {
                    continue;
                }
                if path.is_dir() {
                    walk(&path, writable, out);
                }
                out.insert(path);
            }
        }
        let mut out = BTreeSet::new();
        walk(&self.root, writable, &mut out);
        out
    }
}

impl Drop for Layout {
    fn drop(&mut self) {
        fn writable(dir: &Path) {
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if entry.path().is_dir() {
                    writable(&entry.path());
                }
            }
        }
        writable(&self.root);
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Resolves compose's `${VAR:-default}` / `${VAR:?message}` without an `.env`: the default, or
/// nothing.
fn compose_value(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').map(|e| start + e).expect("closed interpolation");
        let inner = &rest[start + 2..end];
        if let Some((_, default)) = inner.split_once(":-") {
            out.push_str(default);
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The image's environment for this test: the runtime stage's `ENV`, compose's gateway
/// `environment`, then the substitutions the module doc lists.
async fn environment(file: &Dockerfile, layout: &Layout, db: &TestDatabase) -> Vec<(String, String)> {
    let mut env = file.stage("runtime").env();
    let compose = yaml("deploy/compose.yaml");
    for (key, value) in compose["services"]["gateway"]["environment"].as_object().expect("environment") {
        env.push((key.clone(), compose_value(value.as_str().unwrap_or_default())));
    }
    let master_key = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard")).arg("master-key").output();
    let master_key = String::from_utf8(master_key.expect("master-key runs").stdout).expect("utf8").trim().to_owned();
    let listen = env.iter().find(|(k, _)| k == "SWITCHBOARD_SERVER_LISTEN").map(|(_, v)| v.clone());
    let listen = listen.expect("the image sets SWITCHBOARD_SERVER_LISTEN");
    let host = listen.rsplit_once(':').map(|(h, _)| h.to_owned()).expect("host:port");
    let overrides = [
        ("SWITCHBOARD_SERVER_LISTEN", format!("{host}:{}", free_port())),
        ("SWITCHBOARD_DATABASE_URL", db.url().to_owned()),
        ("SWITCHBOARD_REDIS_URL", redis_url()),
        ("SWITCHBOARD_REDIS_KEY_PREFIX", unique_prefix("image").replace(':', "-")),
        ("SWITCHBOARD_SECRETS_MASTER_KEY", master_key),
        ("SWITCHBOARD_PROVIDERS_ALLOW_HTTP_LOOPBACK", "true".to_owned()),
        ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL", "http://127.0.0.1:9/backend-api".to_owned()),
        ("SWITCHBOARD_PROVIDERS_OPENAI_AUTH_URL", "http://127.0.0.1:9".to_owned()),
    ];
    for (key, value) in overrides {
        env.retain(|(k, _)| k != key);
        env.push((key.to_owned(), value));
    }
    for (_, value) in env.iter_mut() {
        if value.starts_with('/') {
            *value = layout.path(value).display().to_string();
        }
    }
    env.push(("TMPDIR".to_owned(), layout.path("/tmp").display().to_string()));
    env
}

fn command(
    program: &Path,
    args: &[String],
    env: &[(String, String)],
    cwd: &Path,
    as_image_user: bool,
) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(program);
    command.args(args).env_clear().envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str()))).current_dir(cwd);
    if as_image_user {
        command.uid(IMAGE_UID).gid(IMAGE_UID);
    }
    command
}

async fn healthcheck_passes(
    layout: &Layout,
    check: &[String],
    env: &[(String, String)],
    cwd: &Path,
    as_image_user: bool,
) -> bool {
    let program = layout.path(&check[0]);
    let status = command(&program, &check[1..], env, cwd, as_image_user)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await;
    status.is_ok_and(|s| s.success())
}

#[tokio::test]
async fn the_image_entrypoint_serves_and_passes_its_healthcheck_on_a_read_only_root() {
    let file = Dockerfile::load();
    let runtime = file.stage("runtime");
    let entrypoint = runtime.one("ENTRYPOINT").exec_form();
    let cmd = runtime.one("CMD").exec_form();
    let check = runtime.one("HEALTHCHECK").exec_form();
    let volume = runtime.one("VOLUME").exec_form().remove(0);
    let workdir = runtime.one("WORKDIR").args.clone();
    let copied = runtime.one("COPY").words()[2].to_owned();
    assert_eq!(entrypoint[0], copied, "the entrypoint is the binary the runtime stage copies");
    assert_eq!(runtime.one("USER").args, format!("{IMAGE_UID}:{IMAGE_UID}"));
    let as_image_user = std::fs::metadata("/proc/self").expect("procfs").uid() == 0;

    let layout = Layout::build(&copied, &volume, as_image_user);
    let db = TestDatabase::create().await.expect("test database");
    let env = environment(&file, &layout, &db).await;
    let cwd = layout.path(&workdir);
    let before = layout.files_outside(&[layout.path(&volume), layout.path("/tmp")]);
    let log_path = std::env::temp_dir().join(format!("switchboard-image-{}.log", std::process::id()));
    let log = std::fs::File::create(&log_path).expect("log file");
    let mut gateway = command(&layout.path(&entrypoint[0]), &cmd, &env, &cwd, as_image_user)
        .stdout(Stdio::null())
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
        .expect("the entrypoint starts");

    let healthy = wait_until("the image HEALTHCHECK to pass", Duration::from_secs(60), || async {
        healthcheck_passes(&layout, &check, &env, &cwd, as_image_user).await.then_some(())
    })
    .await;
    let log_text = || std::fs::read_to_string(&log_path).unwrap_or_default();
    healthy.unwrap_or_else(|e| panic!("{e}; log:\n{}", log_text()));

    let password = layout.path(&volume).join("initial-admin-password");
    let mode = std::fs::metadata(&password).map(|m| m.mode() & 0o777);
    assert_eq!(mode.ok(), Some(0o600), "the generated first-admin password lands in the volume, private");
    if as_image_user {
        let owner = std::fs::metadata(&password).map(|m| m.uid()).ok();
        assert_eq!(owner, Some(IMAGE_UID), "the process ran as the image's user");
    }
    let after = layout.files_outside(&[layout.path(&volume), layout.path("/tmp")]);
    assert_eq!(before, after, "nothing is written outside the volume and /tmp");

    let pid = gateway.id().expect("running").to_string();
    std::process::Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
    let status = tokio::time::timeout(Duration::from_secs(60), gateway.wait()).await.expect("stops").expect("wait");
    assert_eq!(status.code(), Some(0), "SIGTERM (the image's STOPSIGNAL) stops it cleanly; log:\n{}", log_text());
    assert!(
        !healthcheck_passes(&layout, &check, &env, &cwd, as_image_user).await,
        "the HEALTHCHECK fails once it stopped"
    );
    let _ = std::fs::remove_file(&log_path);
    db.drop_schema().await.expect("drop schema");
}

//! The embedded mode with the real binary: no `database.url`, no services. A private working
//! directory per test stands for the newcomer's checkout: the server and every command run in it
//! with the defaults (data under `.runtime/`), the simulator as the only upstream.

mod backup_restore;
mod crash_recovery;
mod instance;
mod migrate_store;
mod mode;
mod rotation;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use test_support::{free_port, wait_until};
use upstream_sim::{AccountSpec, SimConfig, SimHandle, Simulator};

/// One embedded install: a working directory, the simulator, and the server when started.
pub struct Install {
    pub root: PathBuf,
    pub sim: SimHandle,
    pub port: u16,
    server: Option<Child>,
    log: PathBuf,
}

impl Install {
    pub async fn new() -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let root = std::env::temp_dir().join(format!("switchboard-embedded-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&root).expect("temp dir");
        let sim = Simulator::start(SimConfig::default()).await.expect("simulator starts");
        let port = free_port();
        let log = root.join("server.log");
        Self { root, sim, port, server: None, log }
    }

    /// `.runtime/` under the working directory: the default data directory.
    pub fn data_dir(&self) -> PathBuf {
        self.root.join(".runtime")
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The environment every process of this install gets: the upstream (the simulator) and the
    /// port, nothing about storage, data directory or master key.
    fn env(&self) -> Vec<(String, String)> {
        vec![
            ("SWITCHBOARD_PROVIDERS_ALLOW_HTTP_LOOPBACK".into(), "true".into()),
            ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL".into(), format!("{}/backend-api", self.sim.base_url())),
            ("SWITCHBOARD_PROVIDERS_OPENAI_AUTH_URL".into(), self.sim.oauth_issuer_url()),
            ("SWITCHBOARD_SERVER_LISTEN".into(), format!("127.0.0.1:{}", self.port)),
            ("SWITCHBOARD_ENGINE_SNAPSHOT_POLL_MS".into(), "200".into()),
            ("SWITCHBOARD_ENGINE_OBSERVATION_FLUSH_LINGER_MS".into(), "20".into()),
        ]
    }

    /// `switchboard ARGS` in the working directory with this install's environment.
    pub fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
        command.env_clear().current_dir(&self.root).envs(self.env());
        command
    }

    pub fn run(&self, args: &[&str], stdin: Option<&[u8]>, extra_env: &[(&str, &str)]) -> Output {
        use std::io::Write;
        let mut command = self.command();
        command.args(args).envs(extra_env.iter().copied());
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("switchboard runs");
        let mut input = child.stdin.take().expect("stdin");
        if let Some(bytes) = stdin {
            input.write_all(bytes).expect("stdin written");
        }
        drop(input);
        child.wait_with_output().expect("switchboard finishes")
    }

    /// Runs a command that must succeed; its standard output.
    pub fn cli(&self, args: &[&str], stdin: Option<&[u8]>) -> String {
        let output = self.run(args, stdin, &[]);
        assert!(output.status.success(), "switchboard {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).expect("utf-8")
    }

    /// Imports a new simulated account through the command line.
    pub fn import_account(&self, id: &str) {
        let tokens = self.sim.add_account(AccountSpec::openai(id).with_plan("pro")).expect("sim account");
        let auth = serde_json::to_vec(&tokens.codex_auth_json()).expect("json");
        self.cli(&["account", "import", "-"], Some(&auth));
    }

    /// Starts `switchboard serve` and waits for `/readyz` 200.
    pub async fn serve(&mut self) {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(&self.log).expect("log");
        let child = self.command().arg("serve").stdout(Stdio::null()).stderr(log).spawn().expect("serve starts");
        self.server = Some(child);
        let ready = format!("{}/readyz", self.url());
        let result = wait_until("the embedded gateway to be ready", Duration::from_secs(30), || {
            let ready = ready.clone();
            async move { reqwest::get(&ready).await.ok().filter(|r| r.status() == 200).map(|_| ()) }
        })
        .await;
        if let Err(err) = result {
            panic!("{err}; log:\n{}", self.server_log());
        }
    }

    /// The running server's process id.
    pub fn server_pid(&self) -> Option<u32> {
        self.server.as_ref().map(Child::id)
    }

    pub fn server_log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGKILL and reap: a crash (no drain, no clean-up).
    pub fn crash(&mut self) {
        if let Some(mut child) = self.server.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM and wait: a clean stop.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.server.take() {
            let pid = child.id().to_string();
            let _ = Command::new("kill").args(["-TERM", &pid]).status();
            let _ = child.wait();
        }
    }

    pub async fn responses(&self, key: &str, text: &str) -> reqwest::Response {
        reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client")
            .post(format!("{}/v1/responses", self.url()))
            .bearer_auth(key)
            .json(&serde_json::json!({"model": "gpt-5.4", "input": format!("sim: text='{text}'"), "stream": false}))
            .send()
            .await
            .expect("request reaches the gateway")
    }

    /// Waits until `key` is served (the server picks up a key a command created on its next
    /// snapshot poll).
    pub async fn wait_key_served(&self, key: &str) {
        wait_until("the key to be served", Duration::from_secs(15), || async {
            self.responses(key, "ok").await.status().is_success().then_some(())
        })
        .await
        .unwrap_or_else(|e| panic!("{e}; log:\n{}", self.server_log()));
    }
}

impl Drop for Install {
    fn drop(&mut self) {
        if let Some(mut child) = self.server.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

#[cfg(unix)]
pub fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).permissions().mode() & 0o777
}

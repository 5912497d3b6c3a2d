//! A real `switchboard` process for end-to-end tests: its own PostgreSQL schema and Redis prefix,
//! the simulator as upstream, accounts and a key provisioned through the product's command line.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use test_support::{TcpProxy, TestDatabase, free_port, redis_url, unique_prefix, wait_until};
use upstream_sim::{AccountSpec, SimConfig, SimHandle, Simulator};

pub struct Gateway {
    pub url: String,
    pub key: String,
    pub sim: SimHandle,
    pub db: TestDatabase,
    env: Vec<(String, String)>,
    child: Option<Child>,
    log: std::path::PathBuf,
    /// The executable started (the build's binary, or a copy installed elsewhere).
    program: std::path::PathBuf,
}

/// This test gateway's `server.data_dir` (removed with the gateway).
fn data_dir(port: u16) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("switchboard-e2e-data-{}-{port}", std::process::id()))
}

fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_switchboard")
}

impl Gateway {
    /// Starts the simulator with `accounts`, provisions them and one unlimited key, then the
    /// gateway; returns when `/readyz` answers 200.
    pub async fn start(accounts: Vec<AccountSpec>) -> Self {
        Self::start_with(accounts, &[]).await
    }

    pub async fn start_with(accounts: Vec<AccountSpec>, extra_env: &[(&str, &str)]) -> Self {
        Self::start_program(binary().into(), accounts, extra_env).await
    }

    /// Like [`start_with`](Self::start_with), running `program` (a copy of the binary installed
    /// elsewhere, as the self-update tests need) instead of the build's binary.
    pub async fn start_program(
        program: std::path::PathBuf,
        accounts: Vec<AccountSpec>,
        extra_env: &[(&str, &str)],
    ) -> Self {
        let db = TestDatabase::create().await.expect("test database");
        let (db_url, redis) = (db.url().to_owned(), redis_url());
        Self::start_on(program, accounts, extra_env, db, db_url, redis).await
    }

    /// Like [`start_with`](Self::start_with), with the gateway's PostgreSQL and Redis
    /// connections going through proxies the test can cut (an outage for this process only).
    pub async fn start_behind_proxies(accounts: Vec<AccountSpec>, extra_env: &[(&str, &str)]) -> (Self, Proxies) {
        let db = TestDatabase::create().await.expect("test database");
        let postgres = TcpProxy::start(socket_of(db.url())).await.expect("PostgreSQL proxy");
        let redis = TcpProxy::start(socket_of(&redis_url())).await.expect("Redis proxy");
        let db_url = postgres.rewrite_url(db.url()).expect("proxied database url");
        let redis_url = redis.rewrite_url(&redis_url()).expect("proxied redis url");
        let gateway = Self::start_on(binary().into(), accounts, extra_env, db, db_url, redis_url).await;
        (gateway, Proxies { postgres, redis })
    }

    async fn start_on(
        program: std::path::PathBuf,
        accounts: Vec<AccountSpec>,
        extra_env: &[(&str, &str)],
        db: TestDatabase,
        db_url: String,
        redis_url: String,
    ) -> Self {
        let sim = Simulator::start(SimConfig::default()).await.expect("simulator starts");
        let mut tokens = Vec::new();
        for spec in accounts {
            tokens.push(sim.add_account(spec).expect("simulator account"));
        }
        let port = free_port();
        let master_key = run(&[], &["master-key"], None).trim().to_owned();
        let mut env: Vec<(String, String)> = vec![
            ("SWITCHBOARD_DATABASE_URL".into(), db_url),
            ("SWITCHBOARD_REDIS_URL".into(), redis_url),
            ("SWITCHBOARD_REDIS_KEY_PREFIX".into(), unique_prefix("gw").replace(':', "-")),
            ("SWITCHBOARD_SECRETS_MASTER_KEY".into(), master_key),
            ("SWITCHBOARD_PROVIDERS_ALLOW_HTTP_LOOPBACK".into(), "true".into()),
            ("SWITCHBOARD_PROVIDERS_OPENAI_BACKEND_URL".into(), format!("{}/backend-api", sim.base_url())),
            ("SWITCHBOARD_PROVIDERS_OPENAI_AUTH_URL".into(), sim.oauth_issuer_url()),
            // xAI over the simulator's TLS listener (the production path: TLS, HTTP/2 by ALPN).
            ("SWITCHBOARD_PROVIDERS_XAI_INFERENCE_URL".into(), sim.tls_xai_base_url()),
            ("SWITCHBOARD_PROVIDERS_XAI_ISSUER_URL".into(), sim.tls_xai_issuer_url()),
            ("SWITCHBOARD_PROVIDERS_XAI_API_URL".into(), sim.tls_xai_api_url()),
            ("SWITCHBOARD_PROVIDERS_XAI_NPM_REGISTRY_URL".into(), format!("{}/npm", sim.tls_base_url())),
            ("SWITCHBOARD_SERVER_LISTEN".into(), format!("127.0.0.1:{port}")),
            ("SWITCHBOARD_ENGINE_SNAPSHOT_POLL_MS".into(), "200".into()),
            ("SWITCHBOARD_LOG_FORMAT".into(), "json".into()),
            ("SWITCHBOARD_LOG_LEVEL".into(), "info".into()),
            ("SWITCHBOARD_SERVER_DATA_DIR".into(), data_dir(port).display().to_string()),
        ];
        // `{sim_tls_backend}` / `{sim_ca_file}` in a value: the simulator's TLS backend and its test
        // CA written to a file (the production path: TLS, HTTP/2 by ALPN).
        // Beside, not inside, the data directory: the gateway creates that one private itself.
        let ca_file = std::env::temp_dir().join(format!("switchboard-e2e-ca-{}-{port}.pem", std::process::id()));
        std::fs::write(&ca_file, sim.ca_pem()).expect("CA file");
        env.push(("SWITCHBOARD_PROVIDERS_XAI_EXTRA_CA_FILE".into(), ca_file.display().to_string()));
        env.extend(extra_env.iter().map(|(k, v)| {
            let value = v
                .replace("{sim_tls_backend}", &sim.tls_chatgpt_base_url())
                .replace("{sim_ca_file}", &ca_file.display().to_string());
            ((*k).to_owned(), value)
        }));
        for token in &tokens {
            if token.provider == upstream_sim::Provider::Xai {
                let auth = serde_json::to_vec(&token.grok_auth_json()).expect("json");
                run(&env, &["account", "import", "--provider", "xai", "-"], Some(&auth));
            } else {
                let auth = serde_json::to_vec(&token.codex_auth_json()).expect("json");
                run(&env, &["account", "import", "-"], Some(&auth));
            }
        }
        let key = run(&env, &["key", "create", "e2e"], None).trim().to_owned();
        let log = std::env::temp_dir().join(format!("switchboard-e2e-{}-{port}.log", std::process::id()));
        let url = format!("http://127.0.0.1:{port}");
        let mut gateway = Self { url, key, sim, db, env, child: None, log, program };
        gateway.spawn().await;
        gateway
    }

    async fn spawn(&mut self) {
        let log = std::fs::File::create(&self.log).expect("log file");
        let child = Command::new(&self.program)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("switchboard starts");
        self.child = Some(child);
        let url = format!("{}/readyz", self.url);
        let log = self.log.clone();
        wait_until("the gateway to be ready", Duration::from_secs(30), || {
            let url = url.clone();
            async move { reqwest::get(&url).await.ok().filter(|r| r.status() == 200).map(|_| ()) }
        })
        .await
        .unwrap_or_else(|e| panic!("{e}; log:\n{}", std::fs::read_to_string(&log).unwrap_or_default()));
    }

    /// Starts another replica of this gateway: same database, Redis and upstream, its own port.
    pub async fn replica(&self) -> Replica {
        let port = free_port();
        let mut env = self.env.clone();
        for (name, value) in env.iter_mut() {
            if name == "SWITCHBOARD_SERVER_LISTEN" {
                *value = format!("127.0.0.1:{port}");
            }
        }
        let log = std::env::temp_dir().join(format!("switchboard-e2e-replica-{}-{port}.log", std::process::id()));
        let child = Command::new(binary())
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("the replica starts");
        let url = format!("http://127.0.0.1:{port}");
        let ready = format!("{url}/readyz");
        wait_until("the replica to be ready", Duration::from_secs(30), || {
            let ready = ready.clone();
            async move { reqwest::get(&ready).await.ok().filter(|r| r.status() == 200).map(|_| ()) }
        })
        .await
        .expect("replica ready");
        Replica { url, child, log }
    }

    /// A `switchboard` command with this gateway's environment (database, Redis, master key,
    /// upstream), for command-line steps of a test.
    pub fn command(&self) -> Command {
        let mut command = Command::new(binary());
        command.env_clear().envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        command
    }

    /// Stops the process and starts it again with `extra_env` added (same database, Redis and
    /// port): for settings that name the simulator, whose address is known only once it runs.
    pub async fn restart_with(&mut self, extra_env: &[(&str, &str)]) {
        self.stop();
        self.env.extend(extra_env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        self.spawn().await;
    }

    /// Sets (or replaces) one variable of this gateway's environment, for the next command or
    /// restart.
    pub fn set_env(&mut self, name: &str, value: &str) {
        self.env.retain(|(k, _)| k != name);
        self.env.push((name.to_owned(), value.to_owned()));
    }

    /// Runs `switchboard ARGS` with this gateway's environment; panics unless it succeeds.
    pub fn cli(&self, args: &[&str], stdin: Option<&[u8]>) -> String {
        run(&self.env, args, stdin)
    }

    pub fn client(&self) -> reqwest::Client {
        reqwest::Client::builder().no_proxy().build().expect("client")
    }

    /// POST /v1/responses with this gateway's key.
    pub async fn responses(&self, body: serde_json::Value) -> reqwest::Response {
        self.client()
            .post(format!("{}/v1/responses", self.url))
            .bearer_auth(&self.key)
            .json(&body)
            .send()
            .await
            .expect("request reaches the gateway")
    }

    /// The value of one of the gateway's environment variables (e.g. its Redis key prefix).
    pub fn env_value(&self, name: &str) -> Option<&str> {
        self.env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The gateway's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends SIGTERM and waits for the exit code.
    pub fn stop(&mut self) -> Option<i32> {
        let child = self.child.as_mut()?;
        let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                self.child = None;
                return status.code();
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the process with SIGKILL (no drain, no clean-up: a crash) and reaps it.
    pub fn crash(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the process again after [`crash`](Self::crash) or [`stop`](Self::stop), with the
    /// same environment (same database, Redis prefix, port); returns when `/readyz` answers 200.
    pub async fn start_again(&mut self) {
        assert!(self.child.is_none(), "the gateway is still running");
        self.spawn().await;
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// A pool on the gateway's schema, for assertions on what was recorded.
    pub async fn pool(&self) -> sqlx::PgPool {
        self.db.pool().await.expect("pool")
    }
}

/// The proxies between a gateway and its services (see [`Gateway::start_behind_proxies`]).
pub struct Proxies {
    pub postgres: TcpProxy,
    pub redis: TcpProxy,
}

/// `127.0.0.1:PORT` of a `scheme://[user@]host:port/…` URL.
fn socket_of(url: &str) -> std::net::SocketAddr {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or(rest);
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, host_port)| host_port);
    let host_port = host_port.replace("localhost", "127.0.0.1");
    host_port.parse().unwrap_or_else(|e| panic!("{host_port} is not an address: {e}"))
}

/// A second gateway process sharing the first one's storage.
pub struct Replica {
    pub url: String,
    child: Child,
    log: std::path::PathBuf,
}

impl Replica {
    /// The replica's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until this replica logged loading the gateway's current `config_revision`.
    pub async fn wait_for_reload(&self, gateway: &Gateway) {
        let pool = gateway.pool().await;
        let revision: i64 = sqlx::query_scalar("SELECT config_revision FROM runtime_settings")
            .fetch_one(&pool)
            .await
            .expect("revision");
        wait_until("the replica to reload the snapshot", Duration::from_secs(10), || async {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            log.contains(&format!("\"revision\":{revision}")).then_some(())
        })
        .await
        .expect("the replica logs the reload");
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_file(&self.log);
        if let Some(dir) = self.env_value("SWITCHBOARD_SERVER_DATA_DIR") {
            let _ = std::fs::remove_dir_all(dir);
        }
        if let Some(ca) = self.env_value("SWITCHBOARD_PROVIDERS_XAI_EXTRA_CA_FILE") {
            let _ = std::fs::remove_file(ca);
        }
    }
}

fn run(env: &[(String, String)], args: &[&str], stdin: Option<&[u8]>) -> String {
    let mut child = Command::new(binary())
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("switchboard command starts");
    if let Some(input) = stdin {
        child.stdin.take().expect("stdin").write_all(input).expect("write stdin");
    }
    let output = child.wait_with_output().expect("command ends");
    assert!(
        output.status.success(),
        "switchboard {args:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf8 output")
}

/// Polls the request rows until `n` are terminal.
pub async fn terminal_rows(pool: &sqlx::PgPool, n: i64) -> Vec<sqlx::postgres::PgRow> {
    wait_until("the request rows to be written", Duration::from_secs(10), || async {
        let rows = sqlx::query("SELECT * FROM model_requests WHERE status <> 'running' ORDER BY started_at")
            .fetch_all(pool)
            .await
            .ok()?;
        (rows.len() as i64 >= n).then_some(rows)
    })
    .await
    .expect("rows written")
}

//! `/readyz` semantics: out of rotation only when the replica cannot serve.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gateway_host::{FnWorker, Health, ProbeRole, ReadinessProbe, Shutdown, WorkerRuntime};
use serde_json::{Map, Value, json};

struct Probe {
    name: &'static str,
    role: ProbeRole,
    failing: Option<&'static str>,
}

#[async_trait]
impl ReadinessProbe for Probe {
    fn name(&self) -> &str {
        self.name
    }

    fn role(&self) -> ProbeRole {
        self.role
    }

    async fn check(&self) -> Result<(), String> {
        self.failing.map_or(Ok(()), |reason| Err(reason.to_owned()))
    }

    fn details(&self) -> Map<String, Value> {
        let mut details = Map::new();
        details.insert("revision".to_owned(), json!(7));
        details
    }
}

fn probe(name: &'static str, role: ProbeRole, failing: Option<&'static str>) -> Arc<dyn ReadinessProbe> {
    Arc::new(Probe { name, role, failing })
}

fn runtime() -> WorkerRuntime {
    WorkerRuntime::new(Duration::from_millis(50), Duration::from_secs(60))
}

#[tokio::test]
async fn a_failing_degrading_probe_keeps_the_replica_in_rotation_and_says_why() {
    let probes = vec![
        probe("snapshot", ProbeRole::Required, None),
        probe("postgres", ProbeRole::Degrades, Some("connection refused")),
    ];
    let health = Health::new(probes, runtime().registry(), Shutdown::new(Duration::from_secs(1)));
    let (ready, body) = health.readiness().await;
    assert!(ready, "{body}");
    assert_eq!(body["status"], "degraded");
    assert_eq!(body["degraded"], json!(["postgres: connection refused"]));
    assert_eq!(body["checks"]["postgres"]["status"], "failing");
    assert_eq!(body["checks"]["postgres"]["role"], "degrades");
    assert_eq!(body["checks"]["snapshot"], json!({"revision": 7, "role": "required", "status": "ok"}));
}

#[tokio::test]
async fn a_failing_required_probe_or_draining_takes_the_replica_out_of_rotation() {
    let probes =
        vec![probe("redis", ProbeRole::Required, Some("timed out")), probe("postgres", ProbeRole::Degrades, None)];
    let health = Health::new(probes, runtime().registry(), Shutdown::new(Duration::from_secs(1)));
    let (ready, body) = health.readiness().await;
    assert!(!ready, "{body}");
    assert_eq!(body["status"], "not_ready");

    let shutdown = Shutdown::new(Duration::from_secs(1));
    let health = Health::new(vec![probe("redis", ProbeRole::Required, None)], runtime().registry(), shutdown.clone());
    assert_eq!(health.readiness().await.1["status"], "ready");
    shutdown.trigger();
    let (ready, body) = health.readiness().await;
    assert!(!ready && body["status"] == "not_ready" && body["draining"] == true, "{body}");
}

#[tokio::test]
async fn an_unhealthy_worker_is_degraded_not_out_of_rotation() {
    let mut workers = runtime();
    workers
        .register(FnWorker::daemon("flaky", |_ctx| Box::pin(async { Err("database unavailable".into()) })))
        .expect("register");
    let health = Health::new(
        vec![probe("redis", ProbeRole::Required, None)],
        workers.registry(),
        Shutdown::new(Duration::from_secs(1)),
    );
    workers.start();
    let body = test_support::wait_until("the worker to back off", Duration::from_secs(10), || async {
        let (ready, body) = health.readiness().await;
        (body["status"] == "degraded").then_some((ready, body))
    })
    .await
    .expect("degraded");
    assert!(body.0, "still ready: {}", body.1);
    let reasons = body.1["degraded"].as_array().expect("reasons").clone();
    assert!(
        reasons.iter().any(|r| r.as_str().is_some_and(|r| r.starts_with("worker flaky: backing_off"))),
        "{reasons:?}"
    );
    workers.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn liveness_reports_the_running_version() {
    let health = Health::new(Vec::new(), runtime().registry(), Shutdown::new(Duration::from_secs(1)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let shutdown = Shutdown::new(Duration::from_secs(1));
    let server = tokio::spawn(
        gateway_host::Server::new(health.routes(), gateway_host::ConnectionLimits::default())
            .serve(listener, shutdown.clone()),
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.expect("write");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("read");
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    let body: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(body, json!({"status": "ok", "version": gateway_host::build_info::version()}));
    assert_eq!(gateway_host::build_info::version(), env!("CARGO_PKG_VERSION"));
    shutdown.trigger();
    server.await.expect("server task");
}

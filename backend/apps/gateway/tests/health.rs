//! Health that tells the truth (real binary): `/readyz` leaves rotation only when this replica
//! cannot serve; a PostgreSQL outage while the snapshot is in memory is `degraded` (200); a
//! master key that opens none of the stored credentials refuses start-up.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_support::wait_until;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

async fn readyz(url: &str) -> Option<(u16, Value)> {
    let response = reqwest::get(format!("{url}/readyz")).await.ok()?;
    let status = response.status().as_u16();
    Some((status, response.json().await.ok()?))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_outage_is_degraded_not_out_of_rotation_and_a_redis_outage_is_not_ready() {
    let (gateway, proxies) = Gateway::start_behind_proxies(vec![AccountSpec::openai("acct-a")], &[]).await;
    let (pg, redis) = (&proxies.postgres, &proxies.redis);
    let (status, body) = readyz(&gateway.url).await.expect("readyz");
    assert_eq!((status, body["status"].as_str()), (200, Some("ready")), "{body}");

    pg.cut();
    let (status, body) = wait_until("readyz to see PostgreSQL down", Duration::from_secs(30), || async {
        readyz(&gateway.url).await.filter(|(_, body)| body["checks"]["postgres"]["status"] == "failing")
    })
    .await
    .expect("the postgres probe fails");
    assert_eq!(status, 200, "still in rotation: {body}");
    assert_eq!(body["status"], "degraded", "{body}");
    let degraded = body["degraded"].as_array().expect("degraded reasons");
    assert!(degraded.iter().any(|reason| reason.as_str().is_some_and(|r| r.starts_with("postgres"))), "{body}");
    assert_eq!(body["checks"]["snapshot"]["status"], "ok", "the snapshot is in memory: {body}");
    let served = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
    assert_eq!(served.status(), 200, "requests are still served");

    pg.restore();
    wait_until("readyz to be ready again", Duration::from_secs(30), || async {
        readyz(&gateway.url).await.filter(|(status, body)| *status == 200 && body["status"] == "ready")
    })
    .await
    .expect("ready again");

    redis.cut();
    let (status, body) = wait_until("readyz to see Redis down", Duration::from_secs(30), || async {
        readyz(&gateway.url).await.filter(|(_, body)| body["checks"]["redis"]["status"] == "failing")
    })
    .await
    .expect("the redis probe fails");
    assert_eq!((status, body["status"].as_str()), (503, Some("not_ready")), "{body}");
    redis.restore();
    wait_until("readyz to recover from the Redis outage", Duration::from_secs(30), || async {
        readyz(&gateway.url).await.filter(|(status, _)| *status == 200)
    })
    .await
    .expect("ready again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_master_key_that_opens_no_stored_credential_refuses_to_start() {
    let mut gateway = Gateway::start(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")]).await;
    assert_eq!(gateway.stop(), Some(0));
    let wrong_key = gateway.cli(&["master-key"], None).trim().to_owned();
    let sealed_key = gateway.env_value("SWITCHBOARD_SECRETS_MASTER_KEY").expect("the key").to_owned();
    let sealed_id = sealed_key.split(':').next().expect("key id").to_owned();

    let mut command = gateway.command();
    command.arg("serve").env("SWITCHBOARD_SECRETS_MASTER_KEY", &wrong_key).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = command.spawn().expect("switchboard starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the gateway started with a master key that opens none of the credentials");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr).expect("stderr");
    assert_eq!(code, Some(2), "a configuration error: {stderr}");
    let line = stderr.lines().last().unwrap_or_default();
    assert!(line.contains("`secrets.master_key`"), "{line}");
    assert!(line.contains("opens none of the 2 stored credentials"), "{line}");
    assert!(line.contains(&format!("sealed with key id {sealed_id}")), "{line}");
}

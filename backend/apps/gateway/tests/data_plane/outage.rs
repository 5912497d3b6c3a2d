//! No lost rows in a short outage: PostgreSQL goes away for 10 s under load (a proxy between
//! this gateway and the server is cut, so no other test notices). Requests keep being served
//! from the in-memory snapshot, and afterwards every served request has its `model_requests`
//! row: the failed observation batches were retried, not dropped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::task::JoinSet;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

/// What the load loops saw: request ids of the served (200, completed) responses, and failures.
#[derive(Default)]
struct Served {
    ids: Vec<uuid::Uuid>,
    failures: Vec<String>,
}

async fn count(served: &Mutex<Served>) -> usize {
    served.lock().expect("lock").ids.len()
}

async fn metric(gateway: &Gateway, name: &str) -> u64 {
    let text = reqwest::get(format!("{}/metrics", gateway.url)).await.expect("metrics").text().await.expect("text");
    text.lines()
        .find_map(|line| line.strip_prefix(name).and_then(|rest| rest.trim().parse().ok()))
        .unwrap_or_else(|| panic!("{name} missing from /metrics:\n{text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_10_second_postgres_outage_under_load_loses_no_request_row() {
    let accounts = vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")];
    let (gateway, proxies) = Gateway::start_behind_proxies(accounts, &[]).await;
    let gateway = Arc::new(gateway);
    let served = Arc::new(Mutex::new(Served::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut load = JoinSet::new();
    for _ in 0..4 {
        let (gateway, served, stop) = (gateway.clone(), served.clone(), stop.clone());
        load.spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
                let status = response.status();
                let id = response.headers().get("x-request-id").and_then(|v| v.to_str().ok()?.parse().ok());
                let body = response.text().await.unwrap_or_default();
                let mut served = served.lock().expect("lock");
                match id {
                    Some(id) if status == 200 && body.contains("response.completed") => served.ids.push(id),
                    _ => served.failures.push(format!("{status}: {body}")),
                }
            }
        });
    }
    let wait_for = |n: usize| {
        let served = served.clone();
        test_support::wait_until("requests to be served", Duration::from_secs(60), move || {
            let served = served.clone();
            async move { (count(&served).await >= n).then_some(()) }
        })
    };
    wait_for(20).await.expect("load before the outage");

    proxies.postgres.cut();
    let before = count(&served).await;
    // The outage itself lasts 10 s: this sleep is its length, not a synchronisation.
    tokio::time::sleep(Duration::from_secs(10)).await;
    let during = count(&served).await - before;
    proxies.postgres.restore();
    wait_for(count(&served).await + 20).await.expect("load after the outage");
    stop.store(true, Ordering::Relaxed);
    while load.join_next().await.is_some() {}

    let served = Arc::try_unwrap(served).ok().expect("the load loops ended").into_inner().expect("lock");
    assert!(served.failures.is_empty(), "every request was served: {:?}", served.failures);
    assert!(during >= 10, "requests kept being served during the outage ({during})");
    let pool = gateway.pool().await;
    let ids = served.ids.clone();
    let stored = test_support::wait_until("a row for every served request", Duration::from_secs(60), || async {
        let stored: i64 =
            sqlx::query_scalar("SELECT count(*) FROM model_requests WHERE id = ANY($1) AND status = 'completed'")
                .bind(&ids)
                .fetch_one(&pool)
                .await
                .ok()?;
        (stored == ids.len() as i64).then_some(stored)
    })
    .await;
    let stored = match stored {
        Ok(stored) => stored,
        Err(error) => {
            let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM model_requests WHERE id = ANY($1)")
                .bind(&ids)
                .fetch_one(&pool)
                .await
                .unwrap_or(-1);
            panic!("{error}: {stored} rows for {} served requests ({during} during the outage)", ids.len());
        }
    };
    assert_eq!(metric(&gateway, "switchboard_observations_dropped_write_total").await, 0);
    assert_eq!(metric(&gateway, "switchboard_observations_dropped_full_total").await, 0);
    assert!(
        metric(&gateway, "switchboard_storage_write_errors_total").await > 0,
        "the outage's failed writes are counted"
    );
    eprintln!("PostgreSQL outage of 10 s: {} requests served ({during} during it), {stored} rows", ids.len());
}

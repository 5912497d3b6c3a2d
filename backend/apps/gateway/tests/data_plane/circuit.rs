//! The provider circuit end to end: consecutive infrastructure failures open it, an open circuit
//! answers at once without calling upstream, and after the open period one probe at a time goes
//! through; its success closes the circuit.

use std::time::{Duration, Instant};

use gateway_core::coordination::{CircuitSnapshot, CircuitState, ProviderCircuits};
use gateway_core::domain::ProviderKind;
use serde_json::{Value, json};
use test_support::wait_until;
use upstream_sim::AccountSpec;

use super::{coordination, make_sticky};
use crate::gateway::Gateway;

async fn gateway(threshold: &str, open_seconds: &str) -> Gateway {
    let gateway = Gateway::start_with(
        vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")],
        &[
            ("SWITCHBOARD_ENGINE_CIRCUIT_FAILURE_THRESHOLD", threshold),
            ("SWITCHBOARD_ENGINE_CIRCUIT_OPEN_SECONDS", open_seconds),
        ],
    )
    .await;
    make_sticky(&gateway).await;
    gateway
}

async fn circuit(gateway: &Gateway) -> CircuitSnapshot {
    coordination(gateway).circuit(ProviderKind::Openai).await.expect("circuit")
}

/// Waits until the releases of finished requests reached the circuit.
async fn wait_for_circuit(gateway: &Gateway, what: &str, check: impl Fn(&CircuitSnapshot) -> bool) -> CircuitSnapshot {
    let redis = coordination(gateway);
    wait_until(what, Duration::from_secs(30), || async {
        redis.circuit(ProviderKind::Openai).await.ok().filter(|s| check(s))
    })
    .await
    .expect("the circuit reaches the state")
}

fn upstream_calls(gateway: &Gateway) -> usize {
    gateway.sim.requests().iter().filter(|r| r.method == "POST" && r.path.ends_with("/codex/responses")).count()
}

async fn ask(gateway: &Gateway) -> (u16, Value, Option<String>) {
    let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi"})).await;
    let status = response.status().as_u16();
    let retry_after = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_owned);
    (status, response.json().await.expect("json"), retry_after)
}

#[tokio::test]
async fn a_provider_failing_for_every_account_opens_the_circuit_and_a_probe_closes_it() {
    let gateway = gateway("3", "5").await;
    // Every account's upstream fails, slowly (as an overloaded upstream does).
    for account in ["acct-a", "acct-b"] {
        gateway.sim.script(account, "status=500 header_delay_ms=300", 100).expect("script");
    }
    // Both accounts fail: two consecutive failures, the circuit stays closed.
    let failing_started = Instant::now();
    let (status, body, _) = ask(&gateway).await;
    let failing_took = failing_started.elapsed();
    assert_eq!(status, 503, "{body}");
    wait_for_circuit(&gateway, "two failures recorded", |s| s.total_failures == 2).await;
    assert_eq!(circuit(&gateway).await.state, CircuitState::Closed);
    // The third failure (the failover's acquire records it) opens the circuit: no fourth call.
    let (status, body, _) = ask(&gateway).await;
    assert_eq!((status, body["error"]["code"].as_str()), (503, Some("upstream_unavailable")), "{body}");
    assert_eq!(upstream_calls(&gateway), 3, "the threshold's worth of calls, no more");
    assert!(matches!(circuit(&gateway).await.state, CircuitState::Open { .. }));

    // While open: answered at once, without calling upstream.
    let refused_started = Instant::now();
    let (status, body, retry_after) = ask(&gateway).await;
    let refused_took = refused_started.elapsed();
    assert_eq!((status, body["error"]["code"].as_str()), (503, Some("upstream_unavailable")), "{body}");
    assert!(retry_after.is_some(), "Retry-After until the open period ends");
    assert_eq!(upstream_calls(&gateway), 3, "an open circuit calls nobody");

    // The upstream recovers; once the open period ended one probe goes through and closes it.
    gateway.sim.clear_script("acct-a");
    gateway.sim.clear_script("acct-b");
    wait_until("a probe to be served", Duration::from_secs(30), || async {
        let (status, body, _) = ask(&gateway).await;
        match status {
            200 => Some(()),
            503 => {
                assert_eq!(body["error"]["code"], "upstream_unavailable", "{body}");
                None
            }
            other => panic!("unexpected {other}: {body}"),
        }
    })
    .await
    .expect("the circuit half-opens");
    assert_eq!(upstream_calls(&gateway), 4, "exactly one call: the probe");
    let closed = circuit(&gateway).await;
    assert_eq!(closed.state, CircuitState::Closed, "the probe's success closed the circuit: {closed:?}");
    assert_eq!(closed.times_opened, 1);
    let (status, _, _) = ask(&gateway).await;
    assert_eq!(status, 200, "traffic flows again");
    // Timing is reported, not asserted (a loaded machine): the refusal skips the upstream.
    eprintln!(
        "refused by the open circuit in {refused_took:?}; failing over a failing upstream took {failing_took:?} \
         (ratio {:.2})",
        refused_took.as_secs_f64() / failing_took.as_secs_f64()
    );
}

#[tokio::test]
async fn half_open_lets_only_one_probe_through_at_a_time() {
    let gateway = gateway("1", "1").await;
    gateway.sim.script("acct-a", "status=502", 1).expect("script");
    let (status, body, _) = ask(&gateway).await;
    assert_eq!((status, body["error"]["code"].as_str()), (503, Some("upstream_unavailable")), "{body}");
    assert_eq!(upstream_calls(&gateway), 1);
    // The probe will be slow to answer; meanwhile a burst arrives.
    gateway.sim.script("acct-a", "header_delay_ms=4000", 10).expect("script");
    gateway.sim.script("acct-b", "header_delay_ms=4000", 10).expect("script");
    wait_for_circuit(&gateway, "the circuit to half-open", |s| s.state == CircuitState::HalfOpen).await;
    let burst: Vec<_> = (0..6).map(|_| ask(&gateway)).collect();
    let answers = futures_util::future::join_all(burst).await;
    let served = answers.iter().filter(|(status, _, _)| *status == 200).count();
    let refused = answers
        .iter()
        .filter(|(status, body, _)| *status == 503 && body["error"]["code"] == "upstream_unavailable")
        .count();
    assert_eq!((served, refused), (1, 5), "one probe, the others refused: {answers:?}");
    assert_eq!(upstream_calls(&gateway), 2, "only the probe reached upstream");
    assert_eq!(circuit(&gateway).await.state, CircuitState::Closed);
}

#[tokio::test]
async fn account_and_request_failures_never_open_the_circuit() {
    let gateway = gateway("1", "60").await;
    gateway.sim.script("acct-a", "status=429", 1).expect("script");
    let (status, _, _) = ask(&gateway).await;
    assert_eq!(status, 200, "served by the next account");
    // acct-a cools down after its 429: the next request is acct-b's.
    gateway.sim.script("acct-b", "status=400 message='Invalid input item'", 1).expect("script");
    let (status, _, _) = ask(&gateway).await;
    assert_eq!(status, 400);
    let snapshot = wait_for_circuit(&gateway, "the outcomes recorded", |s| s.total_successes >= 3).await;
    assert_eq!(snapshot.state, CircuitState::Closed, "{snapshot:?}");
    assert_eq!((snapshot.total_failures, snapshot.times_opened), (0, 0), "{snapshot:?}");
}

//! The fault table (`gateway_core::fault`, `docs/reliability.md` "Upstream faults") end to end:
//! every data-plane row the simulator can produce, as the real backend presents it, through the
//! real binary: what the client gets, which accounts are tried, what the attempt records, and
//! which cooldown (with its fault) the account is left with. Round robin prefers the account
//! used least recently, so the faulted account `acct-a` goes first in every row (a balancing
//! request after a row that `acct-a` served puts `acct-b` back in front).

use std::time::Duration;

use gateway_core::coordination::Cooldowns;
use gateway_core::domain::AccountId;
use serde_json::{Value, json};
use sqlx::Row as _;
use upstream_sim::AccountSpec;

use super::{coordination, events, wait_for_reload};
use crate::gateway::Gateway;

/// What the request comes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Then {
    /// Another account (`acct-b`) serves after the fault.
    Failover,
    /// The same account serves after a refreshed credential.
    SameAccount,
    /// The client gets this status and error code; nothing else is tried.
    Client(u16, &'static str),
    /// The stream was committed; it ends with an `error` event and the row is `incomplete` with
    /// this error code.
    StreamError(&'static str),
}

struct FaultCase {
    directive: &'static str,
    /// Times the directive is queued on `acct-a`.
    count: usize,
    /// The faulted attempt's recorded outcome: the fault's code.
    fault: &'static str,
    then: Then,
    /// The fault the account's cooldown names afterwards (`None`: not cooled).
    cooled_for: Option<&'static str>,
}

const fn row(directive: &'static str, fault: &'static str, then: Then, cooled_for: Option<&'static str>) -> FaultCase {
    FaultCase { directive, count: 1, fault, then, cooled_for }
}

const MODEL_REFUSAL: &str =
    "status=400 message=\"The 'gpt-5.4' model is not supported when using Codex with a ChatGPT account.\"";

/// The rows, in an order where no row's effect reaches the next (the usage limit records the
/// quota exhausted and the model exclusion lasts an hour: they come last).
fn rows() -> Vec<FaultCase> {
    use Then::*;
    vec![
        row("status=400 message='Invalid input item'", "upstream_rejected", Client(400, "invalid_request"), None),
        row("status=413 page=html", "edge_request_too_large", Client(413, "request_too_large"), None),
        row(
            "status=429 code=rate_limit_exceeded retry_after=3",
            "upstream_rate_limited",
            Failover,
            Some("upstream_rate_limited"),
        ),
        row(
            "status=429 code=rate_limit_exceeded retry_after_date=3",
            "upstream_rate_limited",
            Failover,
            Some("upstream_rate_limited"),
        ),
        row(
            "status=429 code=rate_limit_exceeded",
            "rate_limited_without_deadline",
            Failover,
            Some("rate_limited_without_deadline"),
        ),
        row("status=429 code=usage_not_included", "plan_excludes_service", Failover, Some("plan_excludes_service")),
        row("status=401", "upstream_unauthorized", SameAccount, None),
        FaultCase { count: 2, ..row("status=401", "upstream_unauthorized", Failover, Some("credential_refused")) },
        row(
            "status=403 code=account_deactivated message='This account has been deactivated'",
            "account_deactivated",
            Failover,
            Some("account_deactivated"),
        ),
        row("status=403 code=forbidden message=Forbidden", "account_unusable", Failover, Some("account_unusable")),
        row("challenge=403", "cloudflare_challenge", Failover, Some("cloudflare_challenge")),
        row("challenge=503", "cloudflare_challenge", Failover, Some("cloudflare_challenge")),
        row("challenge=429", "cloudflare_challenge", Failover, Some("cloudflare_challenge")),
        row("status=403 page=html", "edge_blocked", Failover, Some("edge_blocked")),
        row("status=429 page=html retry_after=20", "edge_blocked", Failover, Some("edge_blocked")),
        row("status=522 page=html", "edge_error_page", Failover, None),
        row("status=502 page=html", "edge_error_page", Failover, None),
        row("status=503 page=text", "edge_error_page", Failover, None),
        row("status=502 page=empty", "edge_error_page", Failover, None),
        row("status=500", "upstream_unavailable", Failover, None),
        row(
            "status=503 code=server_is_overloaded retry_after=5",
            "upstream_overloaded",
            Failover,
            Some("upstream_overloaded"),
        ),
        row("status=503 code=server_is_overloaded", "upstream_overloaded", Failover, None),
        row("header_delay_ms=6000", "upstream_head_timeout", Client(504, "upstream_timeout"), None),
        row("reset_before_head=1", "upstream_ambiguous", Client(504, "upstream_timeout"), None),
        row("events=8 stall_after=3", "ok", StreamError("upstream_timeout"), None),
        row("events=8 reset_after=3", "ok", StreamError("stream_interrupted"), None),
        row("events=8 drop_after=3", "ok", StreamError("stream_interrupted"), None),
        row("status=429", "usage_limit_reached", Failover, Some("usage_limit_reached")),
        row(MODEL_REFUSAL, "model_not_supported", Failover, None),
    ]
}

async fn account_id(gateway: &Gateway, external: &str) -> AccountId {
    let id: i64 = sqlx::query_scalar("SELECT id FROM provider_accounts WHERE external_account_id = $1")
        .bind(external)
        .fetch_one(&gateway.pool().await)
        .await
        .expect("account");
    AccountId(id)
}

/// The inference calls the simulator saw, by account, in order.
fn inference_accounts(gateway: &Gateway) -> Vec<String> {
    gateway
        .sim
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/codex/responses"))
        .filter_map(|r| r.account_id.clone())
        .collect()
}

/// The newest request row once `total` rows are terminal.
async fn newest_row(gateway: &Gateway, total: i64) -> sqlx::postgres::PgRow {
    let pool = gateway.pool().await;
    test_support::wait_until("the request rows", Duration::from_secs(15), || async {
        let done: i64 = sqlx::query_scalar("SELECT count(*) FROM model_requests WHERE status <> 'running'")
            .fetch_one(&pool)
            .await
            .ok()?;
        (done >= total).then_some(())
    })
    .await
    .expect("rows written");
    sqlx::query("SELECT * FROM model_requests ORDER BY started_at DESC LIMIT 1").fetch_one(&pool).await.expect("row")
}

fn outcomes(row: &sqlx::postgres::PgRow) -> Vec<String> {
    let attempts: Value = row.get("attempts");
    attempts
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| a["outcome"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn every_fault_row_the_simulator_produces_end_to_end() {
    let env = [
        ("SWITCHBOARD_ENGINE_HEADER_TIMEOUT_SECONDS", "2"),
        ("SWITCHBOARD_PROVIDERS_OPENAI_STREAM_IDLE_TIMEOUT_SECONDS", "2"),
    ];
    let gateway = Gateway::start_with(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], &env).await;
    gateway.cli(&["settings", "set", "rotationStrategy=round_robin"], None);
    wait_for_reload(&gateway).await;
    let redis = coordination(&gateway);
    let a = account_id(&gateway, "acct-a").await;
    let mut total = 0;
    // Whoever serves first, acct-b goes last for the first row.
    let warm = gateway.responses(json!({"model": "gpt-5.4", "input": "warm", "stream": true})).await;
    warm.bytes().await.expect("body");
    total += 1;
    if inference_accounts(&gateway).last().map(String::as_str) == Some("acct-a") {
        gateway.responses(json!({"model": "gpt-5.4", "input": "balance", "stream": true})).await.bytes().await.ok();
        total += 1;
    }
    for row in rows() {
        let label = row.directive;
        gateway.sim.clear_requests();
        gateway.sim.script("acct-a", row.directive, row.count).expect("script");
        let response = gateway.responses(json!({"model": "gpt-5.4", "input": "hi", "stream": true})).await;
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        total += 1;
        let called = inference_accounts(&gateway);
        assert_eq!(called.first().map(String::as_str), Some("acct-a"), "{label}: acct-a goes first: {called:?}");
        let recorded = newest_row(&gateway, total).await;
        let outcomes = outcomes(&recorded);
        assert_eq!(outcomes[0], row.fault, "{label}: the attempt records the fault: {outcomes:?}");
        match row.then {
            Then::Failover => {
                assert_eq!(status, 200, "{label}: {text}");
                assert_eq!(called.last().map(String::as_str), Some("acct-b"), "{label}: {called:?}");
                assert_eq!(outcomes.last().map(String::as_str), Some("ok"), "{label}");
            }
            Then::SameAccount => {
                assert_eq!(status, 200, "{label}: {text}");
                assert_eq!(called, ["acct-a", "acct-a"], "{label}");
                assert_eq!(outcomes, [row.fault, "ok"], "{label}");
            }
            Then::Client(want, code) => {
                assert_eq!(status, want, "{label}: {text}");
                let body: Value = serde_json::from_str(&text).expect("OpenAI error shape");
                assert_eq!(body["error"]["code"], code, "{label}: {body}");
                assert!(!text.contains("<html") && !text.contains("nginx"), "{label}: no edge page reaches the client");
                assert_eq!(called, ["acct-a"], "{label}: nothing else is tried");
            }
            Then::StreamError(code) => {
                assert_eq!(status, 200, "{label}: committed");
                assert_eq!(events(&text).last().map(|e| e.0.as_str()), Some("error"), "{label}: {text}");
                assert_eq!(recorded.get::<String, _>("status"), "incomplete", "{label}");
                assert_eq!(recorded.get::<Option<String>, _>("error_code").as_deref(), Some(code), "{label}");
                assert_eq!(called, ["acct-a"], "{label}: nothing is retried after the commit");
            }
        }
        let cooling = redis.cooldowns(&[a]).await.expect("cooldowns")[0];
        let fault = cooling.and_then(|c| c.fault).map(|f| f.as_str());
        assert_eq!(fault, row.cooled_for, "{label}: the cooldown names its fault ({cooling:?})");
        redis.clear_cooldown(a).await.expect("clear");
        // acct-a served (or was the only one tried): one more request puts acct-b in front.
        if called.last().map(String::as_str) == Some("acct-a") {
            gateway.sim.clear_script("acct-a");
            let balance = gateway.responses(json!({"model": "gpt-5.4", "input": "balance", "stream": true})).await;
            balance.bytes().await.expect("balancing body");
            total += 1;
        }
    }
}

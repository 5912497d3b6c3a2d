//! The `service_tier` policy of a client key end to end (decision 0265): set through the admin
//! API (audited), `force_priority` makes the simulator see `priority` on `/v1/responses` and
//! `/v1/chat/completions` and the rows are priced at that tier, `deny` answers 400 before any
//! upstream call, and a key left at `allow` passes the client's tier.

use gateway_core::accounting::PriceTable;
use gateway_core::domain::TokenUsage;
use serde_json::{Value, json};
use sqlx::Row;
use upstream_sim::AccountSpec;

use super::{Admin, gateway, last_audit};
use crate::gateway::{Gateway, terminal_rows};

fn upstream_tiers(g: &Gateway) -> Vec<Option<String>> {
    g.sim
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/codex/responses"))
        .map(|r| {
            let body: Value = serde_json::from_str(&r.body).expect("the upstream got JSON");
            body.get("service_tier").and_then(Value::as_str).map(str::to_owned)
        })
        .collect()
}

async fn post(g: &Gateway, path: &str, secret: &str, body: Value) -> (u16, Value) {
    let response =
        g.client().post(format!("{}{path}", g.url)).bearer_auth(secret).json(&body).send().await.expect("sent");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn flex() -> Value {
    json!({"model": "gpt-5.4", "input": "hi", "service_tier": "flex"})
}

#[tokio::test]
async fn the_key_policy_forces_priority_or_refuses_a_tier_before_the_upstream_call() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[]).await;
    let admin = Admin::login(&g).await;
    let pool = g.pool().await;

    // allow (the harness key, created before the policy existed): the client's tier goes up.
    let (status, body) = post(&g, "/v1/responses", &g.key, flex()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(upstream_tiers(&g), [Some("flex".to_owned())]);

    let created = admin.post("/keys", json!({"name": "fast", "serviceTierPolicy": "force_priority"})).await;
    assert_eq!(created.status, 201, "{}", created.text);
    assert_eq!(created.json()["key"]["serviceTierPolicy"], "force_priority");
    assert_eq!(last_audit(&pool).await.2["service_tier_policy"], "force_priority");
    let id = created.json()["key"]["id"].as_i64().expect("id");
    let secret = created.json()["secret"].as_str().expect("secret").to_owned();
    let refused = admin.post("/keys", json!({"name": "x", "serviceTierPolicy": "sometimes"})).await;
    assert!(refused.status.is_client_error(), "an unknown policy is refused: {}", refused.text);

    let client = g.client();
    let url = format!("{}/v1/models", g.url);
    test_support::wait_until("the key to be accepted", std::time::Duration::from_secs(10), || {
        let request = client.get(&url).bearer_auth(&secret).send();
        async move { request.await.ok().filter(|r| r.status() == 200).map(|_| ()) }
    })
    .await
    .expect("the new key works");

    let (status, body) = post(&g, "/v1/responses", &secret, flex()).await;
    assert_eq!(status, 200, "{body}");
    let chat = json!({"model": "gpt-5.4", "messages": [{"role": "user", "content": "hi"}]});
    let (status, body) = post(&g, "/v1/chat/completions", &secret, chat).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(upstream_tiers(&g)[1..], [Some("priority".to_owned()), Some("priority".to_owned())]);

    // Recorded and priced at the forced tier (the simulator names no tier in its answers).
    let rows = terminal_rows(&pool, 3).await;
    for row in &rows[1..] {
        assert_eq!(row.get::<Option<String>, _>("service_tier").as_deref(), Some("priority"));
        let usage = TokenUsage {
            input_tokens: row.get::<Option<i64>, _>("input_tokens").unwrap_or(0) as u64,
            cached_input_tokens: row.get::<Option<i64>, _>("cached_input_tokens").unwrap_or(0) as u64,
            output_tokens: row.get::<Option<i64>, _>("output_tokens").unwrap_or(0) as u64,
            reasoning_tokens: 0,
            total_tokens: 0,
        };
        let model: String = row.get("upstream_model");
        let priced = PriceTable::default().cost(&model, Some("priority"), &usage);
        assert!(priced.0 > 0);
        assert_eq!(row.get::<Option<i64>, _>("cost_nano_usd"), Some(priced.0));
    }

    let denied = admin.patch(&format!("/keys/{id}"), json!({"serviceTierPolicy": "deny"})).await;
    assert_eq!(denied.status, 200, "{}", denied.text);
    assert_eq!(denied.json()["key"]["serviceTierPolicy"], "deny");
    assert_eq!(denied.json()["previous"]["serviceTierPolicy"], "force_priority");
    assert_eq!(last_audit(&pool).await.2["service_tier_policy"], "force_priority -> deny");
    let priority = json!({"model": "gpt-5.4", "input": "hi", "service_tier": "priority"});
    let refusal = test_support::wait_until("the deny policy to apply", std::time::Duration::from_secs(10), || {
        let (g, secret, priority) = (&g, &secret, priority.clone());
        async move {
            let (status, body) = post(g, "/v1/responses", secret, priority).await;
            (status == 400).then_some(body)
        }
    })
    .await
    .expect("the deny policy applies");
    assert_eq!(refusal["error"]["type"], "invalid_request_error");
    assert_eq!(refusal["error"]["param"], "service_tier");
    let calls = upstream_tiers(&g).len();
    let (status, _) = post(&g, "/v1/responses", &secret, priority.clone()).await;
    assert_eq!(status, 400);
    assert_eq!(upstream_tiers(&g).len(), calls, "a refused request never reaches upstream");
    let (status, body) = post(&g, "/v1/responses", &secret, json!({"model": "gpt-5.4", "input": "hi"})).await;
    assert_eq!(status, 200, "the default tier still passes: {body}");
    let account = &admin.ok("/accounts").await["items"][0];
    assert_eq!(account["state"], "normal", "the refusals did not penalise the account: {account}");
}

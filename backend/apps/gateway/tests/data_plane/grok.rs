//! The xAI provider end to end: a real gateway, the simulator's Grok CLI proxy and OIDC issuer,
//! accounts imported from a Grok CLI `auth.json`.

use serde_json::{Value, json};
use upstream_sim::{AccountSpec, SettingsPatch};

use super::events;
use crate::gateway::Gateway;

fn xai_calls(gateway: &Gateway) -> Vec<upstream_sim::RecordedRequest> {
    gateway.sim.requests().into_iter().filter(|r| r.path.ends_with("/xai/v1/responses")).collect()
}

fn header<'a>(request: &'a upstream_sim::RecordedRequest, name: &str) -> Option<&'a str> {
    request.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

#[tokio::test]
async fn a_grok_stream_reaches_the_client_as_clean_responses_events() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let response = gateway
        .responses(
            json!({"model": "grok-4.5", "input": "hi", "stream": true, "include": ["message.output_text.logprobs"]}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let body = response.text().await.expect("body");
    let frames = events(&body);
    let names: Vec<&str> = frames.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.first(), Some(&"response.created"), "{names:?}");
    assert_eq!(names.last(), Some(&"response.completed"), "{names:?}");
    assert!(names.contains(&"response.output_text.delta"), "{names:?}");
    assert!(!body.contains("doom_loop_check") && !body.contains("event: ping"), "Grok extras are dropped: {body}");
    for (index, (name, data)) in frames.iter().enumerate() {
        assert_eq!(data["type"], json!(name), "event name and type agree");
        assert_eq!(data["sequence_number"], json!(index), "contiguous sequence numbers");
    }
    let usage = &frames.last().expect("terminal").1["response"]["usage"];
    assert!(usage["input_tokens"].as_u64().unwrap_or(0) > 0, "{usage}");

    let calls = xai_calls(&gateway);
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    assert_eq!(header(call, "x-xai-token-auth"), Some("xai-grok-cli"));
    assert_eq!(header(call, "x-grok-client-mode"), Some("headless"));
    assert!(header(call, "x-grok-client-version").is_some_and(|v| v.split('.').count() == 3));
    assert!(header(call, "x-grok-user-id").is_some(), "the OIDC sub goes with the call");
    let sent: Value = serde_json::from_str(&call.body).expect("json body");
    assert_eq!(sent["stream"], json!(true));
    assert_eq!(sent["store"], json!(false), "store defaults to false");
    let include: Vec<&str> = sent["include"].as_array().expect("include").iter().filter_map(Value::as_str).collect();
    assert_eq!(include, ["message.output_text.logprobs", "reasoning.encrypted_content"]);
    let rows = crate::gateway::terminal_rows(&gateway.pool().await, 1).await;
    let cost: Option<i64> = sqlx::Row::get(&rows[0], "cost_nano_usd");
    assert!(cost.is_some_and(|c| c > 0), "the Grok usage is priced: {cost:?}");
    assert_tls_h2_only(&gateway);
}

/// Every connection to the simulator (the import's userinfo, the inference call) was TLS with
/// HTTP/2 agreed by ALPN: the production path.
fn assert_tls_h2_only(gateway: &Gateway) {
    let connections = gateway.sim.connections();
    assert!(!connections.is_empty());
    assert!(connections.iter().all(|c| c.tls && c.alpn.as_deref() == Some("h2")), "{connections:?}");
}

#[tokio::test]
async fn a_non_stream_grok_request_gets_one_response_object() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let response = gateway.responses(json!({"model": "grok", "input": "hi"})).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["object"], json!("response"));
    assert_eq!(body["status"], json!("completed"));
    let sent: Value = serde_json::from_str(&xai_calls(&gateway)[0].body).expect("json");
    assert_eq!(sent["model"], json!("grok-4.5"), "the alias `grok` maps to grok-4.5");
    assert_tls_h2_only(&gateway);
}

#[tokio::test]
async fn the_version_gate_is_a_client_version_error_that_blames_no_account() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let gated = |min: &str, published: &str| SettingsPatch {
        grok_min_client_version: Some(min.to_owned()),
        grok_cli_version: Some(published.to_owned()),
        ..Default::default()
    };
    // The proxy now wants 9.0.0 and npm has nothing newer: refused, and refused again.
    gateway.sim.update_settings(gated("9.0.0", "0.2.120"));
    let refused = gateway.responses(json!({"model": "grok-4.5", "input": "hi", "stream": true})).await;
    assert_eq!(refused.status(), 502);
    let error: Value = refused.json().await.expect("json");
    assert_eq!(error["error"]["code"], json!("client_version_rejected"), "{error}");
    assert_eq!(error["error"]["type"], json!("server_error"), "not the client's fault: {error}");
    // npm now publishes 9.1.0. The check the first 426 woke runs beside the requests and may
    // read npm only now: then this request is served; otherwise it meets a 426 that wakes the
    // check again. Either way the account must not be cooled down.
    gateway.sim.update_settings(gated("9.0.0", "9.1.0"));
    let second = gateway.responses(json!({"model": "grok-4.5", "input": "hi", "stream": true})).await;
    assert!(matches!(second.status().as_u16(), 502 | 200), "refused for the version or served: {}", second.status());
    // A 426 woke the version check (its period is a day), which moved to 9.1.0 ...
    test_support::wait_until("the version check", std::time::Duration::from_secs(10), || async {
        gateway.log().contains("Grok CLI version moved forward").then_some(())
    })
    .await
    .expect("the 426 wakes the version check");
    // ... and the account was not cooled down: the next request is served by it.
    let served = gateway.responses(json!({"model": "grok-4.5", "input": "hi", "stream": true})).await;
    assert_eq!(served.status(), 200);
    let last = xai_calls(&gateway).pop().expect("call");
    assert_eq!(header(&last, "x-grok-client-version"), Some("9.1.0"));
}

#[tokio::test]
async fn bad_credentials_refresh_the_token_and_retry_the_same_account() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    gateway.sim.expire_access_tokens("grok-a").expect("expire");
    let response = gateway.responses(json!({"model": "grok-4.5", "input": "hi", "stream": true})).await;
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body");
    let refreshes = gateway.sim.requests().iter().filter(|r| r.path.ends_with("/xai/oauth2/token")).count();
    assert_eq!(refreshes, 1, "one refresh, no cooldown");
    assert_eq!(xai_calls(&gateway).len(), 2, "403 bad-credentials, then the same account again");
}

#[tokio::test]
async fn an_upstream_uuid_never_reaches_the_client() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    let team = "5f0c3a52-9d1b-4f7e-8a11-2b3c4d5e6f70";
    let directive = format!("status=400 message='Team {team} cannot use this parameter'");
    gateway.sim.script("grok-a", &directive, 1).expect("script");
    let response = gateway.responses(json!({"model": "grok-4.5", "input": "hi"})).await;
    assert_eq!(response.status(), 400);
    let text = response.text().await.expect("body");
    assert!(!text.contains(team), "{text}");
    assert!(text.contains("[redacted]"), "{text}");
}

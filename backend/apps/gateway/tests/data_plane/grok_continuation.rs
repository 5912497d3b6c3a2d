//! Native continuation for Grok (PROTOCOL H.3, decision 0267): a response asked for with
//! `store: true` is pinned to its account, and `previous_response_id` continues it there with the
//! upstream id put back; anything xAI no longer holds is `previous_response_not_found`, which
//! official clients answer by resending the history. A real gateway and the simulator, which
//! stores responses per account and answers 404 `not_found` for one it does not hold.

use serde_json::{Value, json};
use upstream_sim::{AccountSpec, RecordedRequest};

use crate::gateway::Gateway;

fn xai_calls(gateway: &Gateway) -> Vec<RecordedRequest> {
    gateway.sim.requests().into_iter().filter(|r| r.path.ends_with("/xai/v1/responses")).collect()
}

fn body(request: &RecordedRequest) -> Value {
    serde_json::from_str(&request.body).expect("json body")
}

async fn not_found(response: reqwest::Response) {
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.expect("json");
    assert_eq!(error["error"]["code"], json!("previous_response_not_found"), "{error}");
}

#[tokio::test]
async fn a_stored_grok_response_continues_on_its_account_with_its_id() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a"), AccountSpec::xai("grok-b")]).await;
    let first = gateway.responses(json!({"model": "grok-4.5", "input": "sim: text='first'", "store": true})).await;
    assert_eq!(first.status(), 200);
    let first: Value = first.json().await.expect("json");
    let id = first["id"].as_str().expect("response id").to_owned();
    let owner = xai_calls(&gateway)[0].account_id.clone().expect("owner");

    for turn in 0..3 {
        let next =
            json!({"model": "grok-4.5", "input": format!("sim: text='turn {turn}'"), "previous_response_id": id});
        let response = gateway.responses(next).await;
        assert_eq!(response.status(), 200, "{}", response.text().await.unwrap_or_default());
        let calls = xai_calls(&gateway);
        let call = calls.last().expect("call");
        assert_eq!(call.account_id.as_ref(), Some(&owner), "only the owner can continue it");
        assert_eq!(body(call)["previous_response_id"], json!(id), "the upstream id goes back in");
    }
}

#[tokio::test]
async fn what_xai_does_not_hold_is_previous_response_not_found() {
    let gateway = Gateway::start(vec![AccountSpec::xai("grok-a")]).await;
    not_found(
        gateway.responses(json!({"model": "grok-4.5", "input": "hi", "previous_response_id": "resp_unknown"})).await,
    )
    .await;
    assert!(xai_calls(&gateway).is_empty(), "an unknown id is refused before anything is sent");

    // Not stored (`store` defaults to false for xAI): nothing to continue.
    let unstored: Value =
        gateway.responses(json!({"model": "grok-4.5", "input": "hi"})).await.json().await.expect("json");
    let unstored = unstored["id"].as_str().expect("id").to_owned();
    let next = json!({"model": "grok-4.5", "input": "again", "previous_response_id": unstored});
    not_found(gateway.responses(next).await).await;
    assert_eq!(xai_calls(&gateway).len(), 1);

    // Stored, then deleted upstream: xAI answers 404 and the client is told to resend.
    let stored: Value =
        gateway.responses(json!({"model": "grok-4.5", "input": "hi", "store": true})).await.json().await.expect("json");
    let stored = stored["id"].as_str().expect("id").to_owned();
    let tokens = gateway.sim.mint_tokens("grok-a").expect("tokens");
    let deleted = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client")
        .delete(format!("{}/responses/{stored}", gateway.sim.xai_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-xai-token-auth", "xai-grok-cli")
        .header("x-grok-client-version", "0.2.120")
        .send()
        .await
        .expect("delete");
    assert_eq!(deleted.status(), 200);
    let next = json!({"model": "grok-4.5", "input": "again", "previous_response_id": stored});
    not_found(gateway.responses(next).await).await;
    let calls = xai_calls(&gateway);
    assert_eq!(calls.len(), 3, "one native attempt, no other account, no resend");
    assert_eq!(body(&calls[2])["previous_response_id"], json!(stored));
}

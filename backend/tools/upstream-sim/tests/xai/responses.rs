use base64::Engine;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use serde_json::{Value, json};

use crate::support::{client, names, parse_sse, sim_with_xai, xai_request};

#[tokio::test]
async fn gate_refuses_missing_or_old_client_versions_with_426() {
    let (sim, tokens) = sim_with_xai("supergrok").await;
    let url = format!("{}/responses", sim.xai_base_url());
    let bare = client()
        .post(&url)
        .bearer_auth(&tokens.access_token)
        .json(&json!({"input": "hi"}))
        .send()
        .await
        .expect("request");
    assert_eq!(bare.status(), 426);
    let body: Value = bare.json().await.expect("json");
    assert!(body["error"].as_str().expect("error").contains("Your Grok CLI version (none) is outdated"));
    let old = client()
        .post(&url)
        .bearer_auth(&tokens.access_token)
        .header("x-xai-token-auth", "xai-grok-cli")
        .header("x-grok-client-version", "0.1.5")
        .json(&json!({"input": "hi"}))
        .send()
        .await
        .expect("request");
    assert_eq!(old.status(), 426);
    assert!(old.text().await.expect("body").contains("(0.1.5)"));
    sim.shutdown().await;
}

#[tokio::test]
async fn bad_credentials_are_403_in_xai_shape() {
    let (sim, mut tokens) = sim_with_xai("supergrok").await;
    tokens.access_token = "xai-at-unknown".into();
    let response =
        xai_request(&sim, &tokens, "/responses").json(&json!({"input": "hi"})).send().await.expect("request");
    assert_eq!(response.status(), 403);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["code"], "unauthenticated:bad-credentials");
    assert!(body["error"].is_string());
    sim.shutdown().await;
}

#[tokio::test]
async fn stream_has_xai_events_reasoning_ciphertext_and_cost() {
    let (sim, tokens) = sim_with_xai("supergrok").await;
    let body =
        json!({"model": "grok-4.5", "input": "sim: reasoning=1 text='grok says hi' cost_ticks=1234", "stream": true});
    let response = xai_request(&sim, &tokens, "/responses")
        .header("x-request-id", "rid-1")
        .json(&body)
        .send()
        .await
        .expect("request");
    assert_eq!(response.headers()["x-request-id"], "rid-1");
    let events = parse_sse(&response.text().await.expect("body"));
    let names = names(&events);
    assert_eq!(names[0], "response.created");
    assert_eq!(names[1], "ping");
    assert!(names.contains(&"response.reasoning_text.delta"));
    assert!(names.contains(&"response.doom_loop_check"));
    assert_eq!(*names.last().expect("terminal"), "response.completed");
    let reasoning = events
        .iter()
        .find(|(n, d)| n == "response.output_item.done" && d["item"]["type"] == "reasoning")
        .map(|(_, d)| d["item"]["encrypted_content"].as_str().expect("ciphertext").to_owned())
        .expect("reasoning item");
    let bytes = STANDARD_NO_PAD.decode(reasoning).expect("base64");
    assert!(bytes.len() >= 50);
    let mut counts = [0usize; 256];
    bytes.iter().for_each(|b| counts[*b as usize] += 1);
    let entropy: f64 = counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = *c as f64 / bytes.len() as f64;
            -p * p.log2()
        })
        .sum();
    assert!(entropy / (bytes.len() as f64).log2().min(8.0) >= 0.85, "entropy ratio {entropy}");
    let completed = &events.last().expect("terminal").1["response"];
    assert_eq!(completed["id"], events[0].1["response"]["id"]);
    assert_eq!(completed["usage"]["cost_in_usd_ticks"], 1234);
    assert_eq!(completed["store"], true);
    sim.shutdown().await;
}

#[tokio::test]
async fn non_stream_store_and_previous_response_id() {
    let (sim, tokens) = sim_with_xai("supergrok").await;
    let first: Value = xai_request(&sim, &tokens, "/responses")
        .json(&json!({"model": "grok-4.5", "input": "sim: text='stored answer'"}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(first["object"], "response");
    assert_eq!(first["output"][0]["content"][0]["text"], "stored answer");
    let id = first["id"].as_str().expect("id");
    let second = xai_request(&sim, &tokens, "/responses")
        .json(&json!({"model": "grok-4.5", "input": "more", "previous_response_id": id}))
        .send()
        .await
        .expect("request");
    assert_eq!(second.status(), 200);
    let fetched = client()
        .get(format!("{}/responses/{id}", sim.xai_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-xai-token-auth", "xai-grok-cli")
        .header("x-grok-client-version", "0.2.120")
        .send()
        .await
        .expect("request");
    assert_eq!(fetched.json::<Value>().await.expect("json")["id"], id);

    let unstored: Value = xai_request(&sim, &tokens, "/responses")
        .json(&json!({"model": "grok-4.5", "input": "x", "store": false}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    let missing = xai_request(&sim, &tokens, "/responses")
        .json(&json!({"model": "grok-4.5", "input": "x", "previous_response_id": unstored["id"]}))
        .send()
        .await
        .expect("request");
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.expect("json");
    assert_eq!(body["code"], "not_found");
    sim.shutdown().await;
}

#[tokio::test]
async fn quota_errors_depend_on_the_plan() {
    for (plan, status, code) in
        [("free", 429, "subscription:free-usage-exhausted"), ("supergrok", 402, "personal-team-blocked:spending-limit")]
    {
        let (sim, tokens) = sim_with_xai(plan).await;
        sim.exhaust_quota("grok").expect("account");
        let response = xai_request(&sim, &tokens, "/responses")
            .json(&json!({"model": "grok-4.5", "input": "hi"}))
            .send()
            .await
            .expect("request");
        assert_eq!(response.status().as_u16(), status);
        assert!(response.headers().contains_key("retry-after"));
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["code"], code);
        if plan == "free" {
            assert!(body["error"].as_str().expect("message").contains("for model grok-4.5"));
        }
        sim.shutdown().await;
    }
}

#[tokio::test]
async fn scripted_failures() {
    let (sim, tokens) = sim_with_xai("supergrok").await;
    let cases = [
        ("sim: status=401", 401, "unauthenticated"),
        ("sim: status=403", 403, "unauthenticated:bad-credentials"),
        ("sim: status=400 code=invalid_encrypted_content", 400, "invalid_encrypted_content"),
        ("sim: status=429 retry_after=30", 429, "rate_limit_exceeded"),
        ("sim: status=529", 529, "overloaded"),
        ("sim: status=500", 500, "internal"),
        (
            "sim: status=403 code=permission_denied message='Content violates usage guidelines (safety check)'",
            403,
            "permission_denied",
        ),
    ];
    for (directive, status, code) in cases {
        let response =
            xai_request(&sim, &tokens, "/responses").json(&json!({"input": directive})).send().await.expect("request");
        assert_eq!(response.status().as_u16(), status, "{directive}");
        if status == 429 {
            assert_eq!(response.headers()["retry-after"], "30");
        }
        assert_eq!(response.json::<Value>().await.expect("json")["code"], code, "{directive}");
    }
    let uuid = "sim: status=429 code=rate_limit_exceeded message='team 123e4567-e89b-12d3-a456-426614174000 is over its limit'";
    let body: Value = xai_request(&sim, &tokens, "/responses")
        .json(&json!({"input": uuid}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert!(body["error"].as_str().expect("message").contains("123e4567-e89b-12d3-a456-426614174000"));

    let failed = xai_request(&sim, &tokens, "/responses")
        .json(&json!({"input": "sim: fail=server_error", "stream": true}))
        .send()
        .await
        .expect("request");
    let events = parse_sse(&failed.text().await.expect("body"));
    assert_eq!(events.last().expect("terminal").0, "response.failed");
    let cut = xai_request(&sim, &tokens, "/responses")
        .json(&json!({"input": "sim: cut_after=4", "stream": true}))
        .send()
        .await
        .expect("request");
    assert_eq!(parse_sse(&cut.text().await.expect("body")).len(), 4);
    sim.shutdown().await;
}

#[tokio::test]
async fn websocket_upgrade_is_refused_with_405() {
    let (sim, tokens) = sim_with_xai("supergrok").await;
    let response = client()
        .get(format!("{}/responses", sim.xai_base_url()))
        .bearer_auth(&tokens.access_token)
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 405);
    sim.shutdown().await;
}

/// The reasoning item of a non-stream answer to `tokens`' account.
async fn reasoning_item(sim: &upstream_sim::SimHandle, tokens: &upstream_sim::TokenSet) -> Value {
    let body: Value = xai_request(sim, tokens, "/responses")
        .json(&json!({"model": "grok-4.5", "input": "sim: reasoning=1 text='first'", "store": false}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    body["output"].as_array().expect("output").iter().find(|i| i["type"] == "reasoning").expect("reasoning").clone()
}

#[tokio::test]
async fn reasoning_ciphertext_replays_only_on_the_account_that_made_it() {
    let (sim, tokens) = sim_with_xai("supergrok").await;
    let other = sim.add_account(upstream_sim::AccountSpec::xai("grok-other")).expect("second account");
    let item = reasoning_item(&sim, &tokens).await;
    let ciphertext = item["encrypted_content"].as_str().expect("ciphertext").to_owned();
    let turn = |item: Value| {
        json!({"model": "grok-4.5", "store": false, "input": [
            {"type": "message", "role": "user", "content": "q1"},
            item,
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "first"}]},
            {"type": "message", "role": "user", "content": "q2"},
        ]})
    };
    let own = xai_request(&sim, &tokens, "/responses").json(&turn(item.clone())).send().await.expect("request");
    assert_eq!(own.status(), 200, "the same account decrypts its own reasoning");
    let mut padded = item.clone();
    padded["encrypted_content"] = json!(format!("{ciphertext}{}", "=".repeat((4 - ciphertext.len() % 4) % 4)));
    let own = xai_request(&sim, &tokens, "/responses").json(&turn(padded)).send().await.expect("request");
    assert_eq!(own.status(), 200, "padding does not matter");

    let foreign = xai_request(&sim, &other, "/responses").json(&turn(item.clone())).send().await.expect("request");
    assert_eq!(foreign.status(), 400, "another account cannot decrypt it");
    let body: Value = foreign.json().await.expect("json");
    assert_eq!(body["code"], "invalid_encrypted_content");
    assert!(body["error"].as_str().expect("message").contains("encrypted_content"), "{body}");
    let mut fernet = item.clone();
    fernet["encrypted_content"] = json!("gAAAAABfakefernettokenfromanothervendor");
    let other_vendor = xai_request(&sim, &tokens, "/responses").json(&turn(fernet)).send().await.expect("request");
    assert_eq!(other_vendor.status(), 400, "another vendor's ciphertext is refused");

    let mut bare = item;
    bare.as_object_mut().expect("object").remove("encrypted_content");
    let stripped = xai_request(&sim, &other, "/responses").json(&turn(bare)).send().await.expect("request");
    assert_eq!(stripped.status(), 200, "an item without ciphertext is taken by any account");
    sim.shutdown().await;
}

#[tokio::test]
async fn tool_kinds_and_items_the_proxy_does_not_know_are_refused() {
    let (sim, tokens) = sim_with_xai("supergrok").await;
    let function = json!({"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}});
    let user = json!({"type": "message", "role": "user", "content": "hi"});
    let refused = [
        (json!({"input": "hi", "tools": [{"type": "custom", "name": "apply_patch"}]}), "Invalid tool type: custom"),
        (json!({"input": "hi", "tools": [{"type": "namespace", "name": "docs", "tools": []}]}), "namespace"),
        (
            json!({"input": [user.clone(), {"type": "custom_tool_call", "call_id": "c", "name": "x", "input": ""}]}),
            "Unknown input item type: custom_tool_call",
        ),
        (json!({"input": [user.clone(), {"type": "compaction_trigger"}]}), "compaction_trigger"),
        (
            json!({"input": [user.clone(), {"type": "function_call", "call_id": "c", "name": "x", "namespace": "n", "arguments": "{}"}]}),
            "namespace",
        ),
        (
            json!({"input": "hi", "tools": [function.clone()], "tool_choice": {"type": "function", "name": "other"}}),
            "undeclared function other",
        ),
        (json!({"input": "sim: tool=other", "tools": [function.clone()]}), "sim: tool=other"),
    ];
    for (body, message) in refused {
        let response = xai_request(&sim, &tokens, "/responses").json(&body).send().await.expect("request");
        assert_eq!(response.status(), 400, "{body}");
        let answer: Value = response.json().await.expect("json");
        assert!(answer["error"].as_str().is_some_and(|e| e.contains(message)), "{answer} for {body}");
    }
    let body = json!({"model": "grok-4.5", "input": "sim: tool=lookup args='{\"q\":1}'", "tools": [function]});
    let response = xai_request(&sim, &tokens, "/responses").json(&body).send().await.expect("request");
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.expect("json");
    let call = answer["output"].as_array().expect("output").iter().find(|i| i["type"] == "function_call").cloned();
    assert_eq!(call.expect("a call of the declared function")["name"], json!("lookup"));
    sim.shutdown().await;
}

/// The Codex edge's keys are refused on xAI; the stream and Retry-After faults work here too.
#[tokio::test]
async fn codex_edge_keys_are_refused_and_shared_faults_work() {
    let (sim, tokens) = sim_with_xai("supergrok").await;
    for directive in
        ["sim: challenge=403", "sim: page=html status=502", "sim: set_cookie=a=1", "sim: reset_before_head=1"]
    {
        for path in ["/responses", "/chat/completions"] {
            let body = if path == "/responses" {
                json!({"input": directive, "stream": true})
            } else {
                json!({"model": "grok-4.5", "messages": [{"role": "user", "content": directive}], "stream": true})
            };
            let response = xai_request(&sim, &tokens, path).json(&body).send().await.expect("request");
            assert_eq!(response.status(), 400, "{directive} on {path}");
            let error = response.json::<Value>().await.expect("json")["error"].as_str().unwrap_or_default().to_owned();
            assert!(error.contains("Codex backend only"), "{error}");
        }
    }
    let dated = xai_request(&sim, &tokens, "/responses")
        .json(&json!({"input": "sim: status=429 retry_after_date=60"}))
        .send()
        .await
        .expect("request");
    assert!(dated.headers()["retry-after"].to_str().expect("text").ends_with(" GMT"));
    let mut stalled = xai_request(&sim, &tokens, "/responses")
        .json(&json!({"input": "sim: stall_after=1", "stream": true}))
        .send()
        .await
        .expect("request");
    assert_eq!(stalled.status(), 200);
    let first = stalled.chunk().await.expect("readable").expect("one event");
    assert!(std::str::from_utf8(&first).expect("utf-8").contains("response.created"));
    let silent = tokio::time::timeout(std::time::Duration::from_millis(300), stalled.chunk()).await;
    assert!(silent.is_err(), "then nothing: {silent:?}");
    sim.shutdown().await;
}

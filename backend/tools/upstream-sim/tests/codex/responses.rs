use serde_json::{Value, json};
use upstream_sim::request::compress_zstd;
use upstream_sim::{AccountPatch, AccountSpec, Directive};

use crate::support::{client, codex_body, names, parse_sse, post_codex, sim, sim_with_openai};

#[tokio::test]
async fn streams_the_full_event_sequence_with_headers() {
    let (sim, tokens) = sim_with_openai("pro").await;
    let response = post_codex(&sim, &tokens, &codex_body("sim: text='Hello there' events=2")).await;
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert_eq!(headers["content-type"], "text/event-stream; charset=utf-8");
    for name in [
        "x-codex-primary-used-percent",
        "x-codex-primary-window-minutes",
        "x-codex-primary-reset-at",
        "x-codex-primary-reset-after-seconds",
        "x-codex-secondary-used-percent",
        "x-codex-secondary-window-minutes",
        "x-codex-credits-has-credits",
        "x-codex-credits-balance",
        "x-codex-plan-type",
        "x-codex-turn-state",
        "x-models-etag",
        "x-request-id",
    ] {
        assert!(headers.contains_key(name), "missing {name}");
    }
    assert_eq!(headers["x-codex-plan-type"], "pro");
    assert_eq!(headers["openai-model"], "gpt-5.4");
    let body = response.text().await.expect("body");
    assert!(!body.contains("[DONE]"));
    let events = parse_sse(&body);
    assert_eq!(
        names(&events),
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    for (index, (name, data)) in events.iter().enumerate() {
        assert_eq!(data["type"], name.as_str());
        assert_eq!(data["sequence_number"], index as u64);
    }
    let id = events[0].1["response"]["id"].as_str().expect("response id");
    assert!(id.starts_with("resp_"));
    let completed = &events.last().expect("terminal").1["response"];
    assert_eq!(completed["id"], id);
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["output"][0]["content"][0]["text"], "Hello there");
    assert!(completed["usage"]["total_tokens"].as_u64().expect("usage") > 0);
    sim.shutdown().await;
}

#[tokio::test]
async fn response_ids_are_unique_per_request_and_turn_state_is_echoed() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let first = post_codex(&sim, &tokens, &codex_body("hi")).await.text().await.expect("body");
    let second = post_codex(&sim, &tokens, &codex_body("hi")).await.text().await.expect("body");
    let id = |body: &str| parse_sse(body)[0].1["response"]["id"].as_str().map(str::to_owned);
    assert_ne!(id(&first), id(&second));
    let echoed = client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-codex-turn-state", "ts_sticky")
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("request");
    assert_eq!(echoed.headers()["x-codex-turn-state"], "ts_sticky");
    sim.shutdown().await;
}

async fn rejected(body: Value, plan: &str) -> (u16, Value, bool) {
    let (sim, tokens) = sim_with_openai(plan).await;
    let response = post_codex(&sim, &tokens, &body).await;
    let status = response.status().as_u16();
    let has_rate_headers = response.headers().contains_key("x-codex-primary-used-percent");
    let body = response.json().await.expect("json");
    sim.shutdown().await;
    (status, body, has_rate_headers)
}

#[tokio::test]
async fn rejects_what_the_backend_rejects_with_detail_and_rate_headers() {
    let mut store_true = codex_body("hi");
    store_true["store"] = json!(true);
    let mut store_missing = codex_body("hi");
    store_missing.as_object_mut().expect("object").remove("store");
    let mut not_streaming = codex_body("hi");
    not_streaming["stream"] = json!(false);
    let mut previous = codex_body("hi");
    previous["previous_response_id"] = json!("resp_1");
    let mut temperature = codex_body("hi");
    temperature["temperature"] = json!(0.2);
    let cases = [
        (store_true, "plus", "Store must be set to false"),
        (store_missing, "plus", "Store must be set to false"),
        (not_streaming, "plus", "Stream must be set to true"),
        (previous, "plus", "Unsupported parameter: previous_response_id"),
        (temperature, "plus", "Unsupported parameter: temperature"),
        (codex_body("hi"), "free", "The 'gpt-5.4' model is not supported when using Codex with a ChatGPT account."),
    ];
    for (body, plan, detail) in cases {
        let (status, body, has_rate_headers) = rejected(body, plan).await;
        assert_eq!(status, 400);
        assert_eq!(body["detail"], detail);
        assert!(has_rate_headers, "rate-limit headers on {detail}");
    }
}

#[tokio::test]
async fn unknown_expired_and_mismatched_tokens_are_refused() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let unknown = client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .bearer_auth("not-a-token")
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("request");
    assert_eq!(unknown.status(), 401);
    assert_eq!(unknown.json::<Value>().await.expect("json"), json!({"detail": "Unauthorized"}));

    let mismatch = client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("chatgpt-account-id", "someone-else")
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("request");
    assert_eq!(mismatch.status(), 403);

    sim.expire_access_tokens("acct").expect("account exists");
    let expired = post_codex(&sim, &tokens, &codex_body("hi")).await;
    assert_eq!(expired.status(), 401);
    assert_eq!(expired.headers()["x-openai-authorization-error"], "token_expired");
    assert!(expired.headers().contains_key("x-codex-primary-used-percent"));
    assert!(expired.headers().contains_key("x-error-json"));
    sim.shutdown().await;
}

#[tokio::test]
async fn exhausted_quota_answers_usage_limit_reached() {
    let (sim, tokens) = sim_with_openai("plus").await;
    sim.exhaust_quota("acct").expect("account exists");
    let response = post_codex(&sim, &tokens, &codex_body("hi")).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["x-codex-primary-used-percent"], "100");
    assert_eq!(response.headers()["x-codex-active-limit"], "codex");
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["type"], "usage_limit_reached");
    assert_eq!(body["error"]["plan_type"], "plus");
    assert!(body["error"]["resets_at"].as_u64().is_some());
    assert!(body["error"]["resets_in_seconds"].as_u64().is_some());
    sim.shutdown().await;
}

#[tokio::test]
async fn usage_per_request_exhausts_the_quota() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let patch = AccountPatch { usage_per_request_percent: Some(60.0), ..Default::default() };
    sim.update_account("acct", patch).expect("account exists");
    assert_eq!(post_codex(&sim, &tokens, &codex_body("hi")).await.status(), 200);
    assert_eq!(post_codex(&sim, &tokens, &codex_body("hi")).await.status(), 200);
    assert_eq!(post_codex(&sim, &tokens, &codex_body("hi")).await.status(), 429);
    sim.shutdown().await;
}

#[tokio::test]
async fn banned_account_is_deactivated() {
    let (sim, tokens) = sim_with_openai("plus").await;
    sim.ban_account("acct").expect("account exists");
    let response = post_codex(&sim, &tokens, &codex_body("hi")).await;
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["code"], "account_deactivated");
    sim.shutdown().await;
}

#[tokio::test]
async fn zstd_bodies_are_decoded_and_recorded_with_both_session_header_forms() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let raw = serde_json::to_vec(&codex_body("sim: text='compressed'")).expect("json");
    for (header, value) in [("session_id", "s-underscore"), ("session-id", "s-dash")] {
        let response = client()
            .post(format!("{}/responses", sim.codex_base_url()))
            .bearer_auth(&tokens.access_token)
            .header("content-type", "application/json")
            .header("content-encoding", "zstd")
            .header(header, value)
            .body(compress_zstd(&raw))
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 200);
        assert!(response.text().await.expect("body").contains("compressed"));
    }
    let recorded = sim.requests();
    assert_eq!(recorded.len(), 2);
    assert_eq!(recorded[0].json().expect("decoded body")["model"], "gpt-5.4");
    assert_eq!(recorded[0].header("session_id"), Some("s-underscore"));
    assert_eq!(recorded[1].header("session-id"), Some("s-dash"));
    assert_eq!(recorded[0].path, "/backend-api/codex/responses");
    assert_eq!(recorded[0].account_id.as_deref(), Some("acct"));
    sim.shutdown().await;
}

#[tokio::test]
async fn tool_call_then_final_answer_after_function_call_output() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let prompt = "run it\nsim: reasoning=1 tool=exec_command args='{\"cmd\":\"echo hi\"}' final=done";
    let events = parse_sse(&post_codex(&sim, &tokens, &codex_body(prompt)).await.text().await.expect("body"));
    let done: Vec<&Value> =
        events.iter().filter(|(n, _)| n == "response.output_item.done").map(|(_, d)| &d["item"]).collect();
    assert_eq!(done[0]["type"], "reasoning");
    assert!(done[0]["encrypted_content"].as_str().expect("ciphertext").starts_with("gAAAA"));
    assert_eq!(done[1]["type"], "function_call");
    assert_eq!(done[1]["name"], "exec_command");
    assert_eq!(done[1]["arguments"], "{\"cmd\":\"echo hi\"}");
    assert!(names(&events).contains(&"response.reasoning_summary_text.delta"));
    assert!(names(&events).contains(&"response.function_call_arguments.delta"));

    let mut follow_up = codex_body(prompt);
    let call_id = done[1]["call_id"].clone();
    let items = follow_up["input"].as_array_mut().expect("input");
    items.push(done[1].clone());
    items.push(json!({"type": "function_call_output", "call_id": call_id, "output": "hi"}));
    let events = parse_sse(&post_codex(&sim, &tokens, &follow_up).await.text().await.expect("body"));
    let completed = &events.last().expect("terminal").1["response"];
    let output = completed["output"].as_array().expect("output");
    assert_eq!(output.last().expect("message")["content"][0]["text"], "done");
    assert!(output.iter().all(|item| item["type"] != "function_call"));
    sim.shutdown().await;
}

#[tokio::test]
async fn failed_and_incomplete_terminals() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let failed = parse_sse(
        &post_codex(&sim, &tokens, &codex_body("sim: fail=server_is_overloaded")).await.text().await.expect("body"),
    );
    let (name, data) = failed.last().expect("terminal");
    assert_eq!(name, "response.failed");
    assert_eq!(data["response"]["error"]["code"], "server_is_overloaded");
    let incomplete = parse_sse(
        &post_codex(&sim, &tokens, &codex_body("sim: incomplete=max_output_tokens")).await.text().await.expect("body"),
    );
    let (name, data) = incomplete.last().expect("terminal");
    assert_eq!(name, "response.incomplete");
    assert_eq!(data["response"]["incomplete_details"]["reason"], "max_output_tokens");
    sim.shutdown().await;
}

#[tokio::test]
async fn scripted_statuses_from_header_body_and_queue() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let by_header = client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-sim", "status=503 code=server_is_overloaded")
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("request");
    assert_eq!(by_header.status(), 503);
    assert!(by_header.headers().contains_key("x-codex-primary-used-percent"));
    assert_eq!(by_header.json::<Value>().await.expect("json")["error"]["code"], "server_is_overloaded");

    let by_key_header = client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-sim-status", "500")
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("request");
    assert_eq!(by_key_header.status(), 500);

    let by_body = post_codex(&sim, &tokens, &codex_body("sim: status=429 retry_after=7")).await;
    assert_eq!(by_body.status(), 429);
    assert_eq!(by_body.headers()["retry-after"], "7");
    assert_eq!(by_body.json::<Value>().await.expect("json")["error"]["type"], "usage_limit_reached");

    sim.push_script("acct", Directive::parse("status=401").expect("directive"), 2).expect("account exists");
    assert_eq!(post_codex(&sim, &tokens, &codex_body("hi")).await.status(), 401);
    assert_eq!(post_codex(&sim, &tokens, &codex_body("hi")).await.status(), 401);
    assert_eq!(post_codex(&sim, &tokens, &codex_body("hi")).await.status(), 200);

    let bad = post_codex(&sim, &tokens, &codex_body("sim: nonsense=1")).await;
    assert_eq!(bad.status(), 400);
    sim.shutdown().await;
}

#[tokio::test]
async fn stream_faults_cut_drop_and_reset() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let cut = post_codex(&sim, &tokens, &codex_body("sim: cut_after=3")).await;
    let events = parse_sse(&cut.text().await.expect("a cut body still ends cleanly"));
    assert_eq!(events.len(), 3);
    assert!(!names(&events).contains(&"response.completed"));

    for fault in ["drop_after=3", "reset_after=3"] {
        let response = post_codex(&sim, &tokens, &codex_body(&format!("sim: {fault} delay_ms=1"))).await;
        assert_eq!(response.status(), 200);
        assert!(response.text().await.is_err(), "{fault}: reading the body fails");
    }
    let slow =
        post_codex(&sim, &tokens, &codex_body("sim: header_delay_ms=1 first_byte_ms=1 delay_ms=1 events=3")).await;
    assert!(names(&parse_sse(&slow.text().await.expect("body"))).contains(&"response.completed"));
    sim.shutdown().await;
}

#[tokio::test]
async fn an_installation_id_belongs_to_the_first_account_that_used_it() {
    let sim = sim().await;
    let first = sim.add_account(AccountSpec::openai("first").with_plan("pro")).expect("account");
    let second = sim.add_account(AccountSpec::openai("second").with_plan("pro")).expect("account");
    let url = format!("{}/responses", sim.codex_base_url());
    let mut body = codex_body("hi");
    body["client_metadata"] = serde_json::json!({"x-codex-installation-id": "install-1"});
    let send = |token: String, body: serde_json::Value| {
        let url = url.clone();
        async move { client().post(&url).bearer_auth(token).json(&body).send().await.expect("answer") }
    };
    assert_eq!(send(first.access_token.clone(), body.clone()).await.status(), 200);
    assert_eq!(send(first.access_token.clone(), body.clone()).await.status(), 200, "the same account again");
    let refused = send(second.access_token.clone(), body.clone()).await;
    assert_eq!(refused.status(), 403);
    let answer: serde_json::Value = refused.json().await.expect("json");
    assert_eq!(answer["error"]["code"], "installation_mismatch");
    // The header form counts too.
    let header = client()
        .post(&url)
        .bearer_auth(&second.access_token)
        .header("x-codex-installation-id", "install-1")
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("answer");
    assert_eq!(header.status(), 403);
}

#[tokio::test]
async fn a_session_id_belongs_to_the_first_account_that_used_it() {
    let sim = sim().await;
    let first = sim.add_account(AccountSpec::openai("first").with_plan("pro")).expect("account");
    let second = sim.add_account(AccountSpec::openai("second").with_plan("pro")).expect("account");
    let url = format!("{}/responses", sim.codex_base_url());
    let send = |token: String, header: Option<(&'static str, &'static str)>, body: serde_json::Value| {
        let url = url.clone();
        async move {
            let mut request = client().post(&url).bearer_auth(token).json(&body);
            if let Some((name, value)) = header {
                request = request.header(name, value);
            }
            request.send().await.expect("answer")
        }
    };
    let mut cached = codex_body("hi");
    cached["prompt_cache_key"] = serde_json::json!("conv-1");
    assert_eq!(send(first.access_token.clone(), Some(("session-id", "conv-1")), cached.clone()).await.status(), 200);
    assert_eq!(send(first.access_token.clone(), None, cached.clone()).await.status(), 200, "the same account again");
    let refused = send(second.access_token.clone(), None, cached).await;
    assert_eq!(refused.status(), 403, "the prompt cache key counts");
    let answer: serde_json::Value = refused.json().await.expect("json");
    assert_eq!(answer["error"]["code"], "session_mismatch");
    let header = send(second.access_token.clone(), Some(("session_id", "conv-1")), codex_body("hi")).await;
    assert_eq!(header.status(), 403, "either spelling of the header counts");
    let own = send(second.access_token.clone(), Some(("session_id", "conv-2")), codex_body("hi")).await;
    assert_eq!(own.status(), 200, "another session is the second account's");
}

/// Answers are compressed when the request asks (`compress.rs`): the first of `zstd` and `gzip`
/// offered, SSE and JSON alike; nothing asked, nothing compressed.
#[tokio::test]
async fn answers_are_compressed_when_the_request_asks() {
    use std::io::Read;
    let (sim, tokens) = sim_with_openai("pro").await;
    let url = format!("{}/responses", sim.codex_base_url());
    for (offered, expected, magic) in
        [("zstd,gzip", "zstd", &[0x28, 0xb5, 0x2f, 0xfd][..]), ("gzip, zstd", "gzip", &[0x1f, 0x8b][..])]
    {
        let response = client()
            .post(&url)
            .bearer_auth(&tokens.access_token)
            .header("accept-encoding", offered)
            .json(&codex_body("hi"))
            .send()
            .await
            .expect("answer");
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-encoding"], expected, "{offered}");
        let raw = response.bytes().await.expect("body");
        assert!(raw.starts_with(magic), "{offered}: {:?}", &raw[..8.min(raw.len())]);
        let text = if expected == "zstd" {
            String::from_utf8(upstream_sim::request::decompress_zstd(&raw).expect("zstd")).expect("utf-8")
        } else {
            let mut text = String::new();
            flate2::read::GzDecoder::new(&raw[..]).read_to_string(&mut text).expect("gzip");
            text
        };
        assert!(names(&parse_sse(&text)).contains(&"response.completed"), "{text}");
    }
    let models = client()
        .get(format!("{}/models?client_version=0.171.0", sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .expect("answer");
    assert_eq!(models.headers()["content-encoding"], "gzip", "JSON answers too");
    let plain = post_codex(&sim, &tokens, &codex_body("hi")).await;
    assert!(!plain.headers().contains_key("content-encoding"), "nothing asked, nothing compressed");
}

/// A short rate limit is not the usage limit: its own body, and the headers still describe the
/// account's real windows.
#[tokio::test]
async fn a_short_rate_limit_keeps_the_real_windows_and_retry_after_forms() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let patch =
        AccountPatch { primary_used_percent: Some(12.5), secondary_used_percent: Some(30.0), ..Default::default() };
    sim.update_account("acct", patch).expect("account");
    let response =
        post_codex(&sim, &tokens, &codex_body("sim: status=429 code=rate_limit_exceeded retry_after=3")).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "3");
    assert_eq!(response.headers()["x-codex-primary-used-percent"], "12.5");
    assert_eq!(response.headers()["x-codex-secondary-used-percent"], "30");
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["type"], "rate_limit_exceeded");
    assert_eq!(body["error"]["code"], "rate_limit_exceeded");
    assert!(body["error"]["message"].is_string());
    assert!(body["error"].get("resets_at").is_none() && body["error"].get("resets_in_seconds").is_none(), "{body}");

    let overloaded =
        post_codex(&sim, &tokens, &codex_body("sim: status=503 code=server_is_overloaded retry_after=5")).await;
    assert_eq!(overloaded.status(), 503);
    assert_eq!(overloaded.headers()["retry-after"], "5");
    assert_eq!(overloaded.json::<Value>().await.expect("json")["error"]["code"], "server_is_overloaded");

    let dated = post_codex(&sim, &tokens, &codex_body("sim: status=429 retry_after_date=120")).await;
    let value = dated.headers()["retry-after"].to_str().expect("text").to_owned();
    let now = upstream_sim::ids::now_unix();
    assert!((now + 115..=now + 125).any(|t| upstream_sim::ids::http_date(t) == value), "{value}");
    assert!(value.ends_with(" GMT") && value.len() == 29, "IMF-fixdate: {value}");
    sim.shutdown().await;
}

use serde_json::json;
use upstream_sim::{AccountPatch, AccountSpec};

use crate::support::{assert_challenge, client, codex_body, post_codex, sim, sim_with_openai, tls_client};

#[tokio::test]
async fn the_challenge_directive_answers_as_cloudflare_before_the_backend() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let by_body = post_codex(&sim, &tokens, &codex_body("sim: challenge=403")).await;
    let first = assert_challenge(by_body, 403, false).await;
    let flag = post_codex(&sim, &tokens, &codex_body("sim: challenge=1")).await;
    let second = assert_challenge(flag, 403, false).await;
    assert_ne!(first, second, "a fresh cookie per challenge");
    for status in [429, 503] {
        let response = client()
            .post(format!("{}/responses", sim.codex_base_url()))
            .bearer_auth(&tokens.access_token)
            .header("x-sim-challenge", status.to_string())
            .json(&codex_body("hi"))
            .send()
            .await
            .expect("answer");
        assert_challenge(response, status, false).await;
    }
    // Before the backend: no token needed, none checked.
    let anonymous = client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .header("x-sim", "challenge=403")
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("answer");
    assert_challenge(anonymous, 403, false).await;
    assert_eq!(post_codex(&sim, &tokens, &codex_body("sim: challenge=200")).await.status(), 400);
    let account = sim.account("acct").expect("account");
    assert_eq!(account.requests_served, 0, "a challenge reaches no quota");
    let recorded = sim.requests();
    assert_eq!(recorded[0].set_cookies.len(), 1);
    assert!(recorded[0].set_cookies[0].starts_with(&format!("__cf_bm={first};")));
    assert!(recorded.last().expect("last").set_cookies.is_empty(), "the 400 set no cookie");
    sim.shutdown().await;
}

#[tokio::test]
async fn a_queued_challenge_answers_the_next_request_only() {
    let (sim, tokens) = sim_with_openai("plus").await;
    sim.script("acct", "challenge=503", 1).expect("account");
    assert_challenge(post_codex(&sim, &tokens, &codex_body("hi")).await, 503, false).await;
    assert_eq!(post_codex(&sim, &tokens, &codex_body("hi")).await.status(), 200);
    // A queued entry without an edge key is not the edge's: a challenged request leaves it.
    sim.script("acct", "status=502", 1).expect("account");
    assert_challenge(post_codex(&sim, &tokens, &codex_body("sim: challenge=403")).await, 403, false).await;
    assert_eq!(post_codex(&sim, &tokens, &codex_body("hi")).await.status(), 502);
    sim.shutdown().await;
}

#[tokio::test]
async fn a_challenged_account_is_challenged_on_inference_until_cleared() {
    let sim = sim().await;
    let first = sim.add_account(AccountSpec::openai("first")).expect("account");
    let second = sim.add_account(AccountSpec { challenged: true, ..AccountSpec::openai("second") }).expect("account");
    assert!(sim.account("second").expect("account").challenged);
    sim.update_account("first", AccountPatch { challenged: Some(true), ..Default::default() }).expect("account");
    let mut tokens_by_account = Vec::new();
    for tokens in [&first, &second] {
        let responses = assert_challenge(post_codex(&sim, tokens, &codex_body("hi")).await, 403, false).await;
        let compact = client()
            .post(format!("{}/responses/compact", sim.codex_base_url()))
            .bearer_auth(&tokens.access_token)
            .json(&json!({"model": "gpt-5.4", "input": []}))
            .send()
            .await
            .expect("answer");
        assert_challenge(compact, 403, false).await;
        tokens_by_account.push((tokens.account_id.clone(), responses));
    }
    let models = client()
        .get(format!("{}/models?client_version=0.171.0", sim.codex_base_url()))
        .bearer_auth(&first.access_token)
        .send()
        .await
        .expect("answer");
    assert_eq!(models.status(), 200, "only inference is challenged");
    sim.expire_access_tokens("first").expect("account");
    assert_challenge(post_codex(&sim, &first, &codex_body("hi")).await, 403, false).await;

    // The recording tells which cookie went to which account; a later request's cookie shows.
    let recorded = sim.requests();
    for (account, token) in &tokens_by_account {
        let request = recorded
            .iter()
            .find(|r| r.account_id.as_deref() == Some(account.as_str()) && r.path.ends_with("/codex/responses"))
            .expect("recorded");
        assert!(request.set_cookies[0].starts_with(&format!("__cf_bm={token};")));
    }
    sim.update_account("second", AccountPatch { challenged: Some(false), ..Default::default() }).expect("account");
    let cookie = format!("__cf_bm={}", tokens_by_account[1].1);
    let cleared = client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .bearer_auth(&second.access_token)
        .header("cookie", &cookie)
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("answer");
    assert_eq!(cleared.status(), 200);
    assert!(cleared.headers().get("set-cookie").is_none());
    let last = sim.requests().pop().expect("recorded");
    assert_eq!(last.header("cookie"), Some(cookie.as_str()));
    assert!(last.set_cookies.is_empty());
    sim.shutdown().await;
}

#[tokio::test]
async fn a_challenge_over_tls_sets_a_secure_cookie() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let response = tls_client(&sim)
        .post(format!("{}/codex/responses", sim.tls_chatgpt_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-sim", "challenge=403")
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("answer");
    assert_challenge(response, 403, true).await;
    sim.shutdown().await;
}

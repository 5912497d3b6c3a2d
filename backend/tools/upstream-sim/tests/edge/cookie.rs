use serde_json::json;

use crate::support::{client, codex_body, names, parse_sse, post_codex, sim_with_openai};

fn set_cookies(response: &reqwest::Response) -> Vec<String> {
    response.headers().get_all("set-cookie").iter().map(|v| v.to_str().expect("text").to_owned()).collect()
}

#[tokio::test]
async fn set_cookie_adds_cookies_to_a_normal_stream() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let expires = upstream_sim::ids::http_date(upstream_sim::ids::now_unix() + 3_600);
    let directive =
        format!("sim: set_cookie='a=1; Max-Age=60; Path=/|b=2; Expires={expires}; Path=/backend-api|a=; Max-Age=0'");
    let response = post_codex(&sim, &tokens, &codex_body(&directive)).await;
    assert_eq!(response.status(), 200);
    let cookies = set_cookies(&response);
    assert_eq!(
        cookies,
        ["a=1; Max-Age=60; Path=/", &format!("b=2; Expires={expires}; Path=/backend-api"), "a=; Max-Age=0"]
    );
    assert!(response.headers().contains_key("x-codex-primary-used-percent"), "the backend's answer");
    let events = parse_sse(&response.text().await.expect("body"));
    assert!(names(&events).contains(&"response.completed"));
    assert_eq!(sim.requests()[0].set_cookies, cookies);

    let by_header = client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-sim-set-cookie", "session=xyz; HttpOnly")
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("answer");
    assert_eq!(set_cookies(&by_header), ["session=xyz; HttpOnly"]);
    assert_eq!(post_codex(&sim, &tokens, &codex_body("sim: set_cookie=novalue")).await.status(), 400);
    sim.shutdown().await;
}

#[tokio::test]
async fn set_cookie_from_a_control_api_script_as_a_list() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let control = format!("{}/_sim/accounts/acct/script", sim.base_url());
    let queued = client()
        .post(&control)
        .json(&json!({"directive": {"set_cookie": ["x=1; Max-Age=5", "y=2"], "status": 429}, "count": 1}))
        .send()
        .await
        .expect("answer");
    assert_eq!(queued.status(), 200);
    let response = post_codex(&sim, &tokens, &codex_body("hi")).await;
    assert_eq!(response.status(), 429, "cookies ride on any answer of the backend");
    assert_eq!(set_cookies(&response), ["x=1; Max-Age=5", "y=2"]);
    let refused = client()
        .post(&control)
        .json(&json!({"directive": {"set_cookie": ["=nameless"]}}))
        .send()
        .await
        .expect("answer");
    assert_eq!(refused.status(), 400);
    sim.shutdown().await;
}

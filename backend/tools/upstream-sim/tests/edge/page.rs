use serde_json::Value;

use crate::support::{client, codex_body, post_codex, sim_with_openai};

/// The edge answers carry none of the backend's headers.
fn assert_from_the_edge(response: &reqwest::Response) {
    for backend in ["x-codex-primary-used-percent", "x-request-id", "x-codex-turn-state", "x-models-etag"] {
        assert!(!response.headers().contains_key(backend), "the edge sends no {backend}");
    }
}

#[tokio::test]
async fn html_pages_of_cloudflare_for_502_and_52x() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let pages = [
        (502, "Bad gateway"),
        (520, "Web server is returning an unknown error"),
        (521, "Web server is down"),
        (522, "Connection timed out"),
        (523, "Origin is unreachable"),
        (524, "A timeout occurred"),
    ];
    for (status, title) in pages {
        let response = post_codex(&sim, &tokens, &codex_body(&format!("sim: page=html status={status}"))).await;
        assert_eq!(response.status(), status);
        assert_from_the_edge(&response);
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], "text/html; charset=UTF-8");
        assert_eq!(headers["server"], "cloudflare");
        assert!(headers["cf-ray"].to_str().expect("text").ends_with("-SJC"));
        assert!(!headers.contains_key("cf-mitigated"), "an error page is no challenge");
        let page = response.text().await.expect("page");
        assert!(page.contains(&format!("{status}: {title}</title>")), "{page}");
        assert!(page.contains(&format!("Error code {status}")), "{page}");
    }
    let default_status = post_codex(&sim, &tokens, &codex_body("sim: page=html")).await;
    assert_eq!(default_status.status(), 502, "page= alone is a 502");
    sim.shutdown().await;
}

#[tokio::test]
async fn html_pages_of_nginx_for_413_and_other_statuses() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let too_large = post_codex(&sim, &tokens, &codex_body("sim: page=html status=413")).await;
    assert_eq!(too_large.status(), 413);
    assert_from_the_edge(&too_large);
    assert_eq!(too_large.headers()["content-type"], "text/html");
    assert_eq!(too_large.headers()["server"], "nginx");
    assert_eq!(
        too_large.text().await.expect("page"),
        "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    );
    let other = post_codex(&sim, &tokens, &codex_body("sim: page=html status=503")).await;
    assert_eq!(other.status(), 503);
    assert!(other.headers()["content-type"].to_str().expect("text").starts_with("text/html"));
    assert!(other.text().await.expect("page").contains("<title>503 Service Unavailable</title>"));
    sim.shutdown().await;
}

#[tokio::test]
async fn text_and_empty_pages() {
    let (sim, tokens) = sim_with_openai("plus").await;
    let text = post_codex(&sim, &tokens, &codex_body("sim: page=text status=503")).await;
    assert_eq!(text.status(), 503);
    assert_from_the_edge(&text);
    assert_eq!(text.headers()["content-type"], "text/plain");
    assert_eq!(
        text.text().await.expect("body"),
        "upstream connect error or disconnect/reset before headers. reset reason: connection termination"
    );
    let own = post_codex(&sim, &tokens, &codex_body("sim: page=text status=502 message='Bad Gateway'")).await;
    assert_eq!(own.text().await.expect("body"), "Bad Gateway");

    // No body at all, even when the request offers compression.
    let empty = client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("accept-encoding", "zstd, gzip")
        .header("x-sim", "page=empty status=502 retry_after=9")
        .json(&codex_body("hi"))
        .send()
        .await
        .expect("answer");
    assert_eq!(empty.status(), 502);
    assert_from_the_edge(&empty);
    assert_eq!(empty.headers()["content-length"], "0");
    assert_eq!(empty.headers()["retry-after"], "9");
    assert!(!empty.headers().contains_key("content-type"));
    assert!(!empty.headers().contains_key("content-encoding"));
    assert!(empty.bytes().await.expect("body").is_empty());

    // Without page= a status keeps the backend's JSON body and headers.
    let json = post_codex(&sim, &tokens, &codex_body("sim: status=502")).await;
    assert_eq!(json.headers()["content-type"], "application/json");
    assert!(json.headers().contains_key("x-codex-primary-used-percent"));
    assert_eq!(json.json::<Value>().await.expect("json")["error"]["type"], "server_error");
    assert_eq!(post_codex(&sim, &tokens, &codex_body("sim: page=pdf")).await.status(), 400);
    sim.shutdown().await;
}

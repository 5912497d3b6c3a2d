//! Bad input gets a clear error in the OpenAI shape and nothing reaches upstream.

use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;
use crate::wire;

async fn post(gateway: &Gateway, key: Option<&str>, body: &str) -> (u16, Value) {
    let mut request = gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .header("content-type", "application/json")
        .body(body.to_owned());
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.expect("sent");
    let status = response.status().as_u16();
    (status, response.json().await.expect("json error body"))
}

#[tokio::test]
async fn client_mistakes_are_refused_in_the_openai_error_shape() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let good = r#"{"model":"gpt-5.4","input":"hi"}"#;

    let (status, body) = post(&gateway, None, good).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("invalid_api_key")));
    let (status, body) = post(&gateway, Some("sk-sb-wrong"), good).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("invalid_api_key")));
    let (status, body) = post(&gateway, Some(&gateway.key), "{not json").await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("invalid_json")));
    let (status, body) = post(&gateway, Some(&gateway.key), r#"{"input":"hi"}"#).await;
    assert_eq!((status, body["error"]["param"].as_str()), (400, Some("model")));
    let (status, body) = post(&gateway, Some(&gateway.key), r#"{"model":"gpt-5.4","stream":"yes"}"#).await;
    assert_eq!((status, body["error"]["type"].as_str()), (400, Some("invalid_request_error")));

    // x-api-key works as well as Bearer.
    let response = gateway
        .client()
        .post(format!("{}/v1/responses", gateway.url))
        .header("x-api-key", &gateway.key)
        .header("content-type", "application/json")
        .body(good)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body");
    let upstream_calls = gateway.sim.requests().iter().filter(|r| r.path.ends_with("/codex/responses")).count();
    assert_eq!(upstream_calls, 1, "only the valid request reached upstream");
}

#[tokio::test]
async fn a_body_over_the_limit_is_413() {
    let gateway = Gateway::start_with(
        vec![AccountSpec::openai("acct-a")],
        &[("SWITCHBOARD_SERVER_REQUEST_BODY_LIMIT_BYTES", "2048")],
    )
    .await;
    let big = format!(r#"{{"model":"gpt-5.4","input":"{}"}}"#, "x".repeat(4096));
    let (status, body) = post(&gateway, Some(&gateway.key), &big).await;
    assert_eq!((status, body["error"]["code"].as_str()), (413, Some("request_too_large")));
}

#[tokio::test]
async fn unknown_routes_answer_404_in_the_openai_shape() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let response = gateway.client().get(format!("{}/v1/nothing-here", gateway.url)).send().await.expect("sent");
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["code"], "not_found");
}

/// A 30 MB upload's head, announced but not sent, with `Expect: 100-continue`.
fn upload_head(key: Option<&str>) -> String {
    let auth = key.map(|k| format!("Authorization: Bearer {k}\r\n")).unwrap_or_default();
    format!(
        "POST /v1/responses HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: application/json\r\n\
         Content-Length: 31457280\r\nExpect: 100-continue\r\n\r\n"
    )
}

#[tokio::test]
async fn an_unauthenticated_upload_is_refused_from_its_headers_before_a_byte_of_body() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    for key in [None, Some("sk-sb-wrong")] {
        let mut stream = wire::connect(&gateway.url).await;
        let answer = wire::exchange(&mut stream, upload_head(key).as_bytes(), Duration::from_secs(10))
            .await
            .expect("answered without the body");
        assert_eq!(answer.status, 401, "{answer:?}");
        assert_eq!(answer.json()["error"]["code"], "invalid_api_key");
        assert!(!answer.continued, "no invitation to send the body: {answer:?}");
        assert_eq!(answer.header("connection"), Some("close"), "{answer:?}");
        let rest = tokio::time::timeout(Duration::from_secs(10), wire::read_to_close(&mut stream)).await;
        assert_eq!(rest.expect("the connection is closed").len(), 0);
    }

    // Streaming the 30 MB anyway: the answer comes and the connection closes long before the
    // gateway would have read it all.
    let stream = wire::connect(&gateway.url).await;
    let (mut reader, mut writer) = stream.into_split();
    let sent = tokio::spawn(async move {
        let mut sent = 0usize;
        if writer.write_all(upload_head(None).replace("Expect: 100-continue\r\n", "").as_bytes()).await.is_err() {
            return sent;
        }
        let chunk = vec![b'x'; 64 * 1024];
        while sent < 30 * 1024 * 1024 && writer.write_all(&chunk).await.is_ok() {
            sent += chunk.len();
        }
        sent
    });
    let answer = tokio::time::timeout(Duration::from_secs(10), wire::read_answer(&mut reader))
        .await
        .expect("answered while the body streams")
        .expect("an answer before the close");
    assert_eq!(answer.status, 401);
    let sent = tokio::time::timeout(Duration::from_secs(20), sent).await.expect("the writer stops").expect("task");
    assert!(sent < 30 * 1024 * 1024, "the gateway closed the connection instead of reading {sent} bytes");

    // A valid key still gets its body read and answered.
    let body = r#"{"model":"gpt-5.4","input":"hi"}"#;
    let mut stream = wire::connect(&gateway.url).await;
    let head = format!(
        "POST /v1/responses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        gateway.key,
        body.len()
    );
    let answer = wire::exchange(&mut stream, head.as_bytes(), Duration::from_secs(30)).await.expect("answer");
    assert_eq!(answer.status, 200, "{answer:?}");
}

#[tokio::test]
async fn a_malformed_chunked_body_is_400_invalid_request() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    let mut stream = wire::connect(&gateway.url).await;
    let request = format!(
        "POST /v1/responses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\n\r\n5\r\n{{\"mod\r\nzz-not-a-size\r\n",
        gateway.key
    );
    let answer = wire::exchange(&mut stream, request.as_bytes(), Duration::from_secs(10)).await.expect("answer");
    assert_eq!((answer.status, answer.json()["error"]["code"].as_str()), (400, Some("invalid_request")), "{answer:?}");
    assert_eq!(answer.json()["error"]["type"], "invalid_request_error");
    let upstream_calls = gateway.sim.requests().iter().filter(|r| r.path.ends_with("/codex/responses")).count();
    assert_eq!(upstream_calls, 0);
}

/// GET and HEAD of page routes are the dashboard's (`dashboard.rs`); everything else no router
/// claims is 404 in the OpenAI shape.
#[tokio::test]
async fn unknown_paths_outside_the_apis_answer_404_in_the_openai_shape() {
    let gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    for (method, path) in
        [("POST", "/"), ("GET", "/favicon.ico"), ("POST", "/v2/responses"), ("GET", "/api"), ("DELETE", "/api/adminx")]
    {
        let response = gateway
            .client()
            .request(method.parse().expect("method"), format!("{}{path}", gateway.url))
            .header("cookie", "sb_admin_session=whatever")
            .bearer_auth("sb-admin-whatever")
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), 404, "{method} {path}");
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["error"]["code"], "not_found", "{method} {path}: {body}");
        assert_eq!(body["error"]["type"], "invalid_request_error", "{method} {path}: {body}");
    }
    // A client path with a method it does not have: 405 in the same shape.
    let response = gateway.client().delete(format!("{}/v1/models", gateway.url)).send().await.expect("sent");
    assert_eq!(response.status(), 405);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["code"], "method_not_allowed");
}

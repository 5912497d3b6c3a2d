//! Shared helpers: a started simulator, an HTTP client, SSE parsing.

use serde_json::{Value, json};
use upstream_sim::{AccountSpec, SimConfig, SimHandle, Simulator, TokenSet};

pub async fn sim() -> SimHandle {
    Simulator::start(SimConfig::default()).await.expect("simulator starts on 127.0.0.1:0")
}

/// A simulator with one OpenAI account `acct` on `plan`.
pub async fn sim_with_openai(plan: &str) -> (SimHandle, TokenSet) {
    let sim = sim().await;
    let tokens = sim.add_account(AccountSpec::openai("acct").with_plan(plan)).expect("new account");
    (sim, tokens)
}

/// A simulator with one xAI account `grok` on `plan`.
pub async fn sim_with_xai(plan: &str) -> (SimHandle, TokenSet) {
    let sim = sim().await;
    let tokens = sim.add_account(AccountSpec::xai("grok").with_plan(plan)).expect("new account");
    (sim, tokens)
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("reqwest client builds")
}

/// `(event name, data)` pairs of an SSE body; `data: [DONE]` becomes `("", "[DONE]")`.
pub fn parse_sse(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .map(|frame| {
            let mut name = String::new();
            let mut data = String::new();
            for line in frame.lines() {
                if let Some(rest) = line.strip_prefix("event: ") {
                    name = rest.to_owned();
                } else if let Some(rest) = line.strip_prefix("data: ") {
                    data.push_str(rest);
                }
            }
            let value = serde_json::from_str(&data).unwrap_or(Value::String(data));
            (name, value)
        })
        .collect()
}

/// A Codex-style Responses body with one user message.
pub fn codex_body(text: &str) -> Value {
    json!({
        "model": "gpt-5.4",
        "instructions": "You are a test.",
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}],
        "tools": [],
        "tool_choice": "auto",
        "parallel_tool_calls": true,
        "store": false,
        "stream": true,
        "include": ["reasoning.encrypted_content"],
    })
}

/// POSTs a Responses body to the Codex backend as the account of `tokens`.
pub async fn post_codex(sim: &SimHandle, tokens: &TokenSet, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{}/responses", sim.codex_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("chatgpt-account-id", &tokens.account_id)
        .json(body)
        .send()
        .await
        .expect("request reaches the simulator")
}

/// The event names of an SSE body.
pub fn names(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(name, _)| name.as_str()).collect()
}

/// The xAI client headers that pass the gate.
pub fn xai_request(sim: &SimHandle, tokens: &TokenSet, path: &str) -> reqwest::RequestBuilder {
    client()
        .post(format!("{}{path}", sim.xai_base_url()))
        .bearer_auth(&tokens.access_token)
        .header("x-xai-token-auth", "xai-grok-cli")
        .header("x-grok-client-version", "0.2.120")
}

/// A client over TLS that trusts the simulator's test CA (HTTP/2 by ALPN).
pub fn tls_client(sim: &SimHandle) -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let ca = reqwest::Certificate::from_pem(sim.ca_pem().as_bytes()).expect("the test CA parses");
    reqwest::Client::builder()
        .no_proxy()
        .tls_certs_only([ca])
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("reqwest client builds")
}

/// Writes one HTTP/1.1 `POST` of `body` to `path` with `headers` on a fresh connection.
pub async fn raw_post(sim: &SimHandle, path: &str, headers: &[(&str, &str)], body: &Value) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let body = body.to_string();
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        sim.addr(),
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = tokio::net::TcpStream::connect(sim.addr()).await.expect("connects");
    stream.write_all(head.as_bytes()).await.expect("head written");
    stream.write_all(body.as_bytes()).await.expect("body written");
    stream
}

/// The `__cf_bm` token of a challenge's `Set-Cookie`, after checking the cookie's shape:
/// url-safe token of 40+ characters, `path=/`, an HTTP-date 30 minutes ahead, `HttpOnly`,
/// `SameSite=None`, `Secure` only over TLS, no `Domain` (host-only).
fn cf_bm(headers: &reqwest::header::HeaderMap, tls: bool) -> String {
    let cookies: Vec<&str> = headers.get_all("set-cookie").iter().map(|v| v.to_str().expect("text")).collect();
    assert_eq!(cookies.len(), 1, "{cookies:?}");
    let cookie = cookies[0];
    let mut parts = cookie.split("; ");
    let token = parts.next().expect("pair").strip_prefix("__cf_bm=").expect("__cf_bm");
    assert!(token.len() >= 40, "{token}");
    assert!(token.chars().all(|c| c.is_ascii_alphanumeric() || "-_.~".contains(c)), "{token}");
    assert_eq!(parts.next(), Some("path=/"));
    let expires = parts.next().expect("expires").strip_prefix("expires=").expect("expires=");
    let now = upstream_sim::ids::now_unix();
    assert!(
        (now + 1_795..=now + 1_805).any(|t| upstream_sim::ids::http_date(t) == expires),
        "{expires} is not now + 30 min"
    );
    assert_eq!(parts.next(), Some("HttpOnly"));
    assert_eq!(parts.next(), Some("SameSite=None"));
    assert_eq!(parts.next(), if tls { Some("Secure") } else { None });
    assert_eq!(parts.next(), None);
    assert!(!cookie.to_ascii_lowercase().contains("domain"), "host-only: {cookie}");
    token.to_owned()
}

/// Checks an answer is Cloudflare's managed challenge with `status`; returns the cookie token.
pub async fn assert_challenge(response: reqwest::Response, status: u16, tls: bool) -> String {
    assert_eq!(response.status(), status);
    let headers = response.headers().clone();
    assert_eq!(headers["content-type"], "text/html; charset=UTF-8");
    assert_eq!(headers["cf-mitigated"], "challenge");
    assert_eq!(headers["server"], "cloudflare");
    assert_eq!(
        headers["cache-control"],
        "private, max-age=0, no-store, no-cache, must-revalidate, post-check=0, pre-check=0"
    );
    let ray = headers["cf-ray"].to_str().expect("text");
    let (id, colo) = ray.split_once('-').expect("id-colo");
    assert_eq!((id.len(), colo), (16, "SJC"), "{ray}");
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{ray}");
    for backend in ["x-codex-primary-used-percent", "x-codex-plan-type", "x-request-id", "x-models-etag", "retry-after"]
    {
        assert!(!headers.contains_key(backend), "the edge sends no {backend}");
    }
    let token = cf_bm(&headers, tls);
    let page = response.text().await.expect("page");
    assert!(page.contains("<title>Just a moment...</title>"), "{page}");
    assert!(page.contains("window._cf_chl_opt={"), "{page}");
    assert!(page.contains("/cdn-cgi/challenge-platform/"), "{page}");
    assert!(page.contains(id), "the page names the ray");
    token
}

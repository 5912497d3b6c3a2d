//! The admin API end to end on the real binary (PostgreSQL + Redis + the simulator): every
//! endpoint, the authorisation failures, CSRF, rate limits, audit chain tampering, the OpenAPI
//! document and a secret-leak sweep over every response and log line.

mod account_import;
mod accounts;
mod alerts;
mod auth;
mod backups;
mod coverage;
mod first_admin;
mod groups_keys;
mod live_events;
mod login_limits;
mod oauth;
mod oauth_at_rest;
mod oauth_xai;
mod proxies;
mod routing;
mod secrets;
mod service_tier;
mod session_standing;
mod settings;
mod spans;
pub mod two_factor;
mod usage_audit;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

/// The bootstrap password every admin test gateway gets.
pub const PASSWORD: &str = "admin-test-password-7f3b";

/// A gateway with the admin bootstrapped from configuration.
pub async fn gateway(accounts: Vec<AccountSpec>, extra_env: &[(&str, &str)]) -> Gateway {
    let mut env = vec![("SWITCHBOARD_ADMIN_BOOTSTRAP_PASSWORD", PASSWORD), ("SWITCHBOARD_ADMIN_LIVE_POLL_MS", "300")];
    env.extend_from_slice(extra_env);
    Gateway::start_with(accounts, &env).await
}

/// One admin API answer.
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }

    /// The envelope's error code.
    pub fn code(&self) -> String {
        self.json()["error"]["code"].as_str().unwrap_or_default().to_owned()
    }
}

/// A client for `/api/admin/*`: a session cookie and its CSRF token, or an API key; like a
/// browser, it keeps the device cookie a login sets and can sit behind a proxy
/// (`X-Forwarded-For`).
#[derive(Clone)]
pub struct Admin {
    pub base: String,
    pub cookie: Option<String>,
    pub csrf: Option<String>,
    pub bearer: Option<String>,
    /// The `sb_admin_device` cookie of this browser.
    pub device: Option<String>,
    /// Sent as `X-Forwarded-For`.
    pub forwarded_for: Option<String>,
    client: reqwest::Client,
}

impl Admin {
    pub fn anonymous(gateway: &Gateway) -> Self {
        Self {
            base: format!("{}/api/admin", gateway.url),
            cookie: None,
            csrf: None,
            bearer: None,
            device: None,
            forwarded_for: None,
            client: gateway.client(),
        }
    }

    /// Logs in as the bootstrap admin.
    pub async fn login(gateway: &Gateway) -> Self {
        Self::login_as(gateway, "admin", PASSWORD).await
    }

    pub async fn login_as(gateway: &Gateway, username: &str, password: &str) -> Self {
        let mut admin = Self::anonymous(gateway);
        let answer = admin.sign_in(username, password).await;
        assert_eq!(answer.status, 200, "login: {}", answer.text);
        admin
    }

    /// `POST /auth/login` from this client; on success it keeps the session (cookie, CSRF
    /// token) and the device cookie, like a browser.
    pub async fn sign_in(&mut self, username: &str, password: &str) -> Answer {
        let body = json!({"username": username, "password": password});
        let answer = self.send(Method::POST, "/auth/login", Some(body)).await;
        if answer.status == 200 {
            self.cookie = Some(session_cookie(&answer).expect("session cookie"));
            self.csrf = answer.json()["session"]["csrfToken"].as_str().map(str::to_owned);
        }
        if let Some(device) = set_cookie(&answer, "sb_admin_device") {
            self.device = Some(device);
        }
        answer
    }

    pub async fn send(&self, method: Method, path: &str, body: Option<Value>) -> Answer {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        let cookies: Vec<String> = [("sb_admin_session", &self.cookie), ("sb_admin_device", &self.device)]
            .into_iter()
            .filter_map(|(name, value)| value.as_ref().map(|v| format!("{name}={v}")))
            .collect();
        if !cookies.is_empty() {
            request = request.header("cookie", cookies.join("; "));
        }
        if let Some(forwarded) = &self.forwarded_for {
            request = request.header("x-forwarded-for", forwarded);
        }
        if let Some(csrf) = &self.csrf {
            request = request.header("x-switchboard-csrf", csrf);
        }
        if let Some(bearer) = &self.bearer {
            request = request.bearer_auth(bearer);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("admin request");
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap_or_default();
        Answer { status, headers, text }
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.send(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Answer {
        self.send(Method::POST, path, Some(body)).await
    }

    pub async fn patch(&self, path: &str, body: Value) -> Answer {
        self.send(Method::PATCH, path, Some(body)).await
    }

    pub async fn put(&self, path: &str, body: Value) -> Answer {
        self.send(Method::PUT, path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> Answer {
        self.send(Method::DELETE, path, None).await
    }

    /// GET that must answer 200; returns the JSON.
    pub async fn ok(&self, path: &str) -> Value {
        let answer = self.get(path).await;
        assert_eq!(answer.status, 200, "GET {path}: {}", answer.text);
        answer.json()
    }
}

/// The session token from a login answer's `Set-Cookie`.
pub fn session_cookie(answer: &Answer) -> Option<String> {
    set_cookie(answer, "sb_admin_session")
}

/// The value a `Set-Cookie` header of the answer gives cookie `name` (not an empty removal).
pub fn set_cookie(answer: &Answer, name: &str) -> Option<String> {
    answer.headers.get_all("set-cookie").iter().filter_map(|v| v.to_str().ok()).find_map(|header| {
        let value = header.split(';').next()?.strip_prefix(name)?.strip_prefix('=')?;
        (!value.is_empty()).then(|| value.to_owned())
    })
}

/// The `Set-Cookie` header that sets cookie `name`, attributes included.
pub fn set_cookie_header(answer: &Answer, name: &str) -> Option<String> {
    answer
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|header| header.starts_with(&format!("{name}=")))
        .map(str::to_owned)
}

/// `redis-cli` against the test Redis.
pub fn redis_cli(args: &[&str]) -> String {
    let output = std::process::Command::new("redis-cli")
        .arg("-u")
        .arg(test_support::redis_url())
        .args(args)
        .output()
        .expect("redis-cli runs");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// The current `config_revision`.
pub async fn config_revision(pool: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar("SELECT config_revision FROM runtime_settings WHERE id = 1")
        .fetch_one(pool)
        .await
        .expect("revision")
}

/// The newest audit row as (action, target_id, details).
pub async fn last_audit(pool: &sqlx::PgPool) -> (String, Option<String>, Value) {
    let row: (String, Option<String>, Value) =
        sqlx::query_as("SELECT action, target_id, details FROM admin_audit_events ORDER BY id DESC LIMIT 1")
            .fetch_one(pool)
            .await
            .expect("audit row");
    row
}

//! The secret-leak sweep: unique secrets are planted in an account's credential tokens, a client
//! key, an admin API key, admin passwords, a TOTP secret and the backup settings; then every admin endpoint is
//! called and every response body — and every log line of the run — is searched for them.
//! Only the answers that exist to hand a secret out once are exempt: key creation, admin API
//! key creation, TOTP enrollment and the confirmed credential export.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::Method;
use serde_json::json;
use upstream_sim::AccountSpec;

use super::{Admin, PASSWORD, gateway};

#[tokio::test]
async fn no_admin_response_and_no_log_line_contains_a_planted_secret() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[("SWITCHBOARD_LOG_LEVEL", "debug")]).await;
    let admin = Admin::login(&g).await;
    let mut seen = String::new();
    let mut record = |answer: &super::Answer| {
        seen.push_str(&answer.text);
        seen.push('\n');
        for (name, value) in &answer.headers {
            if name != "set-cookie" {
                seen.push_str(value.to_str().unwrap_or_default());
                seen.push('\n');
            }
        }
    };

    // Plant: credential tokens through the import endpoint.
    let tokens = g.sim.add_account(AccountSpec::openai("acct-secret")).expect("sim account");
    let imported = admin
        .post("/accounts/import", json!({"provider": "openai", "content": tokens.codex_auth_json().to_string()}))
        .await;
    assert_eq!(imported.status, 200, "{}", imported.text);
    record(&imported);
    // A client key (its plaintext is in the create answer only).
    let key = admin.post("/keys", json!({"name": "leak-check"})).await;
    let key_secret = key.json()["secret"].as_str().expect("secret").to_owned();
    let key_id = key.json()["key"]["id"].as_i64().expect("id");
    // An admin API key.
    let api_key = admin.post("/auth/api-key", json!({"password": PASSWORD})).await.json()["apiKey"]
        .as_str()
        .expect("api key")
        .to_owned();
    // Backup storage secrets.
    let access_key = "AKIA-LEAKCHECK-7d1e0c";
    let secret_key = "backup-secret-leakcheck-91af2b";
    let backup = admin
        .put(
            "/backups/settings",
            json!({"enabled": false, "endpoint": "https://203.0.113.10", "bucket": "b",
                   "accessKeyId": access_key, "secretAccessKey": secret_key}),
        )
        .await;
    assert_eq!(backup.status, 200);
    record(&backup);
    // A second password.
    let new_password = "leakcheck-new-password-55c0";
    let changed = admin.post("/auth/password", json!({"currentPassword": PASSWORD, "newPassword": new_password})).await;
    assert_eq!(changed.status, 200);
    record(&changed);
    let wrong = Admin::anonymous(&g).post("/auth/login", json!({"username": "admin", "password": PASSWORD})).await;
    record(&wrong);
    let admin = Admin::login_as(&g, "admin", new_password).await;
    // A TOTP secret (its enroll answer is the one place it is shown), enabled: the rest of the
    // sweep runs on this session.
    let (_, enrollment) = super::two_factor::enable_totp(&admin, new_password).await;
    let totp_secret = enrollment["secret"].as_str().expect("secret").to_owned();
    let totp_uri = enrollment["otpauthUri"].as_str().expect("uri").to_owned();

    // Traffic with the planted key and an API-key session, so logs see both.
    let response = g
        .client()
        .post(format!("{}/v1/responses", g.url))
        .bearer_auth(&key_secret)
        .json(&json!({"model": "gpt-5.4", "input": "hi", "stream": false}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    response.bytes().await.expect("body");
    crate::gateway::terminal_rows(&g.pool().await, 1).await;
    let mut bot = Admin::anonymous(&g);
    bot.bearer = Some(api_key.clone());
    record(&bot.get("/auth/session").await);

    // Every GET of the document, with real ids.
    let account = admin.ok("/accounts").await["items"][0]["id"].as_i64().expect("account");
    let group = admin.post("/groups", json!({"name": "leak", "accountIds": [account]})).await;
    record(&group);
    let group = group.json()["id"].as_i64().expect("group");
    // Egress proxy credentials on the account and the group (after the traffic: the proxy is
    // never reached).
    let proxy_password = "proxy-pass-leakcheck-3c9d";
    for path in [format!("/accounts/{account}/egress-proxy"), format!("/groups/{group}/egress-proxy")] {
        let url = format!("http://proxyuser:{proxy_password}@203.0.113.10:3128");
        let set = admin.put(&path, json!({"url": url})).await;
        assert_eq!(set.status, 200, "{}", set.text);
        assert_eq!(set.json()["egressProxy"]["url"], "http://203.0.113.10:3128", "{}", set.text);
        assert_eq!(set.json()["egressProxy"]["hasCredentials"], true);
        record(&set);
    }
    let request = admin.ok("/usage/records").await["items"][0]["id"].as_str().expect("request").to_owned();
    let audit = admin.ok("/audit").await["items"][0]["id"].as_i64().expect("audit");
    let run = admin.post("/backups", json!({})).await;
    assert_eq!(run.status, 202, "{}", run.text);
    record(&run);
    let backup = run.json()["id"].as_i64().expect("backup");
    // An alert webhook's signing secret and a token in its URL's query.
    let webhook_secret = "whsec-leakcheck-0c4f7a9e";
    let webhook = admin
        .post(
            "/alerts/webhooks",
            json!({"name": "leak", "url": "https://8.8.8.8/h?token=hook-token-leakcheck-5b2c",
                "secret": webhook_secret}),
        )
        .await;
    assert_eq!(webhook.status, 201, "{}", webhook.text);
    record(&webhook);
    let webhook = webhook.json()["id"].as_i64().expect("webhook");
    let doc = admin.ok("/openapi.json").await;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        if item.get("get").is_none() || path.ends_with("/events") {
            continue;
        }
        let concrete = path
            .strip_prefix("/api/admin")
            .expect("prefix")
            .replace("/accounts/{id}", &format!("/accounts/{account}"))
            .replace("/groups/{id}", &format!("/groups/{group}"))
            .replace("/keys/{id}", &format!("/keys/{key_id}"))
            .replace("/usage/records/{id}", &format!("/usage/records/{request}"))
            .replace("/audit/{id}", &format!("/audit/{audit}"))
            .replace("/backups/{id}", &format!("/backups/{backup}"))
            .replace("/alerts/webhooks/{id}", &format!("/alerts/webhooks/{webhook}"));
        let answer = admin.get(&concrete).await;
        assert!(answer.status.is_success(), "GET {concrete}: {} {}", answer.status, answer.text);
        record(&answer);
    }
    for path in ["/usage/insights?groupBy=key", "/usage/insights?groupBy=account", "/audit?limit=200"] {
        record(&admin.get(path).await);
    }
    for (method, path, body) in [
        (Method::PATCH, format!("/accounts/{account}"), json!({"weight": 3})),
        (Method::PATCH, format!("/keys/{key_id}"), json!({"name": "leak-check-2"})),
        (
            Method::POST,
            "/accounts/import".to_owned(),
            json!({"provider": "openai", "content": tokens.codex_auth_json().to_string(), "dryRun": true}),
        ),
        (Method::POST, "/audit/verify".to_owned(), json!({})),
        (Method::PATCH, "/settings".to_owned(), json!({"requestIntervalMs": 1})),
    ] {
        let answer = admin.send(method, &path, Some(body)).await;
        assert!(answer.status.is_success(), "{path}: {}", answer.text);
        record(&answer);
    }
    // The live stream for a moment.
    let stream = g
        .client()
        .get(format!("{}/events", admin.base))
        .header("cookie", format!("sb_admin_session={}", admin.cookie.clone().unwrap_or_default()))
        .send()
        .await
        .expect("events");
    let mut body = stream.bytes_stream();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    while let Ok(Some(Ok(chunk))) = tokio::time::timeout_at(deadline, body.next()).await {
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }

    let planted = [
        ("refresh token", tokens.refresh_token.as_str()),
        ("access token", tokens.access_token.as_str()),
        ("id token", tokens.id_token.as_str()),
        ("client key", key_secret.as_str()),
        ("admin API key", api_key.as_str()),
        ("bootstrap password", PASSWORD),
        ("changed password", new_password),
        ("backup access key", access_key),
        ("backup secret key", secret_key),
        ("webhook secret", webhook_secret),
        ("webhook URL token", "hook-token-leakcheck-5b2c"),
        ("TOTP secret", totp_secret.as_str()),
        ("TOTP URI", totp_uri.as_str()),
        ("egress proxy password", proxy_password),
    ];
    assert!(seen.len() > 10_000, "the sweep saw the responses ({} bytes)", seen.len());
    let log = g.log();
    assert!(log.lines().count() > 10, "the run logged");
    for (what, secret) in planted {
        assert!(!seen.contains(secret), "an admin response contains the {what}");
        assert!(!log.contains(secret), "the log contains the {what}");
    }
    let audit_rows: Vec<serde_json::Value> =
        sqlx::query_scalar("SELECT details FROM admin_audit_events").fetch_all(&g.pool().await).await.expect("audit");
    let audit_text = serde_json::to_string(&audit_rows).expect("json");
    for (what, secret) in planted {
        assert!(!audit_text.contains(secret), "an audit row contains the {what}");
    }
    assert!(audit_text.contains("http://203.0.113.10:3128"), "the proxy edits are audited without user info");
    // At rest the proxy URL is sealed: neither its text column nor its ciphertext holds it.
    for (table, select) in [
        ("provider_accounts", "SELECT egress_proxy, egress_proxy_ciphertext FROM provider_accounts"),
        ("account_groups", "SELECT egress_proxy, egress_proxy_ciphertext FROM account_groups"),
    ] {
        let rows: Vec<(Option<String>, Option<Vec<u8>>)> =
            sqlx::query_as(select).fetch_all(&g.pool().await).await.expect("proxy columns");
        assert!(rows.iter().any(|(shown, _)| shown.is_some()), "{table} holds a proxy");
        for (shown, sealed) in rows {
            assert!(!shown.unwrap_or_default().contains(proxy_password), "{table}.egress_proxy holds the password");
            let sealed = String::from_utf8_lossy(&sealed.unwrap_or_default()).into_owned();
            assert!(!sealed.contains(proxy_password), "{table}.egress_proxy_ciphertext holds it in clear");
        }
    }
}

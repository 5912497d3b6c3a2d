//! Runtime settings (If-Match, field errors, undo values) and backup settings (write-only
//! secrets, identity lock).

use serde_json::json;

use super::{Admin, config_revision, gateway, last_audit};

#[tokio::test]
async fn settings_change_with_if_match_field_errors_and_previous_values() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let pool = g.pool().await;
    let current = admin.ok("/settings").await;
    assert_eq!(current["settings"]["rotationStrategy"], "smart");
    let revision = current["configRevision"].as_i64().expect("revision");
    assert_eq!(revision, config_revision(&pool).await);

    let changed = g
        .client()
        .patch(format!("{}/settings", admin.base))
        .header("cookie", format!("sb_admin_session={}", admin.cookie.clone().unwrap_or_default()))
        .header("x-switchboard-csrf", admin.csrf.clone().unwrap_or_default())
        .header("if-match", format!("\"{revision}\""))
        .json(&json!({"rotationStrategy": "round_robin", "requestIntervalMs": 250, "modelAliases": {"fast": "gpt-5.4-mini"}}))
        .send()
        .await
        .expect("patch");
    assert_eq!(changed.status(), 200);
    let body: serde_json::Value = changed.json().await.expect("json");
    assert_eq!(body["configRevision"], revision + 1);
    assert_eq!(body["settings"]["rotationStrategy"], "round_robin");
    assert_eq!(body["previous"]["rotationStrategy"], "smart");
    let (action, _, details) = last_audit(&pool).await;
    assert_eq!(action, "settings.update");
    assert_eq!(details["rotationStrategy"]["to"], "round_robin");

    let stale = g
        .client()
        .patch(format!("{}/settings", admin.base))
        .header("cookie", format!("sb_admin_session={}", admin.cookie.clone().unwrap_or_default()))
        .header("x-switchboard-csrf", admin.csrf.clone().unwrap_or_default())
        .header("if-match", revision.to_string())
        .json(&json!({"requestIntervalMs": 1}))
        .send()
        .await
        .expect("patch");
    assert_eq!(stale.status(), 412);
    for (body, field) in [
        (json!({"defaultAccountConcurrency": 0}), "defaultAccountConcurrency"),
        (json!({"refreshConcurrency": 1000}), "refreshConcurrency"),
        (json!({"modelAliases": {"a": "a"}}), "modelAliases.a"),
        (json!({"modelAliases": {"a": "b", "b": "c"}}), "modelAliases.a"),
        (json!({"rotationStrategy": "random"}), "rotationStrategy"),
    ] {
        let refused = admin.patch("/settings", body.clone()).await;
        assert_eq!(refused.status, 422, "{body}: {}", refused.text);
        assert_eq!(refused.json()["error"]["fields"][0]["field"], field, "{body}");
    }
    assert_eq!(admin.ok("/settings").await["settings"]["requestIntervalMs"], 250);
    assert_eq!(admin.ok("/system/version").await["configRevision"], revision + 1);
}

#[tokio::test]
async fn backup_settings_keep_secrets_write_only() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let initial = admin.ok("/backups/settings").await;
    assert_eq!(initial["credentialsConfigured"], false);
    let put = admin
        .put(
            "/backups/settings",
            json!({"enabled": true, "endpoint": "https://203.0.113.10", "region": "auto", "bucket": "b",
                   "prefix": "sb/", "accessKeyId": "AKIA-TEST-ID", "secretAccessKey": "backup-secret-value",
                   "scheduleCron": "0 3 * * *", "retentionDays": 7}),
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.text);
    assert_eq!(put.json()["credentialsConfigured"], true);
    assert!(!put.text.contains("backup-secret-value") && !put.text.contains("AKIA-TEST-ID"));
    let (action, _, details) = last_audit(&g.pool().await).await;
    assert_eq!(action, "backup_settings.update");
    assert!(!details.to_string().contains("backup-secret-value"));
    let half = admin
        .put("/backups/settings", json!({"enabled": false, "endpoint": "", "bucket": "", "accessKeyId": "only-one"}))
        .await;
    assert_eq!(half.status, 422);
    let bad_cron = admin
        .put("/backups/settings", json!({"enabled": false, "endpoint": "", "bucket": "", "scheduleCron": "x"}))
        .await;
    assert_eq!(bad_cron.json()["error"]["fields"][0]["field"], "scheduleCron");
    let kept = admin
        .put(
            "/backups/settings",
            json!({"enabled": false, "endpoint": "https://203.0.113.10", "bucket": "b", "region": "auto"}),
        )
        .await;
    assert_eq!(kept.json()["credentialsConfigured"], true, "absent secrets are kept");
}

#[tokio::test]
async fn a_backup_endpoint_on_a_private_or_metadata_address_is_refused_without_echoing_it() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let put = |endpoint: &'static str| {
        let admin = admin.clone();
        async move {
            admin
                .put(
                    "/backups/settings",
                    json!({"enabled": false, "endpoint": endpoint, "bucket": "b", "region": "auto"}),
                )
                .await
        }
    };
    for endpoint in [
        "http://127.0.0.1:9000",
        "https://2130706433:9000",
        "https://0x7f.1",
        "https://localhost:9000",
        "https://10.0.0.8",
        "https://169.254.169.254/latest/meta-data",
        "https://[::ffff:169.254.169.254]",
        "https://[fd00:ec2::254]",
        "https://100.64.0.1",
        "https://[fc00::1]",
        "https://no-such-host.invalid",
        "https://backup-user:hunter2-endpoint-pass@203.0.113.10",
    ] {
        let refused = put(endpoint).await;
        assert_eq!(refused.status, 422, "{endpoint}: {}", refused.text);
        assert_eq!(refused.json()["error"]["fields"][0]["field"], "endpoint", "{endpoint}: {}", refused.text);
        assert!(!refused.text.contains("hunter2") && !refused.text.contains("backup-user"), "{}", refused.text);
    }
    assert!(!g.log().contains("hunter2-endpoint-pass"), "the refused URL's password is not logged");
    assert_eq!(admin.ok("/backups/settings").await["endpoint"], "", "nothing was stored");
    assert_eq!(put("https://203.0.113.10").await.status, 200);
}

#[tokio::test]
async fn allow_private_urls_opens_private_backup_endpoints_but_never_metadata() {
    let g = gateway(vec![], &[("SWITCHBOARD_ADMIN_ALLOW_PRIVATE_URLS", "true")]).await;
    let admin = Admin::login(&g).await;
    let body = |endpoint: &str| json!({"enabled": false, "endpoint": endpoint, "bucket": "b", "region": "auto"});
    let minio = admin.put("/backups/settings", body("http://127.0.0.1:9000")).await;
    assert_eq!(minio.status, 200, "{}", minio.text);
    assert_eq!(admin.put("/backups/settings", body("https://192.168.10.5")).await.status, 200);
    let metadata = admin.put("/backups/settings", body("http://169.254.169.254")).await;
    assert_eq!(metadata.status, 422, "{}", metadata.text);
    assert_eq!(
        admin.put("/backups/settings", body("http://203.0.113.10")).await.status,
        422,
        "plain http to a public host"
    );
}

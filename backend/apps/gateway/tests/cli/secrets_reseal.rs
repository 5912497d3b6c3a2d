//! `switchboard secrets reseal` finishes a master-key rotation: with the new key current and the
//! old one retired it re-seals every sealed secret (account credentials, TOTP secrets, backup
//! storage secrets), reports counts per kind, is idempotent, and leaves scheduling facts and
//! revisions alone; afterwards the retired key can be dropped and everything still opens.

use gateway_admin::ports::BackupJobs;
use gateway_store::crypto::{Keyring, MasterKey};
use secrecy::ExposeSecret;
use serde_json::json;
use upstream_sim::AccountSpec;

use crate::admin_api::two_factor::enable_totp;
use crate::admin_api::{Admin, PASSWORD, gateway};

/// What a re-seal must not touch, per account: revision, updated_at, scheduling facts.
async fn account_facts(pool: &sqlx::PgPool) -> Vec<(i64, i64, time::OffsetDateTime, bool, i16, Option<i32>)> {
    sqlx::query_as(
        "SELECT id, credential_revision, updated_at, enabled, weight, concurrency_cap FROM provider_accounts ORDER BY id",
    )
    .fetch_all(pool)
    .await
    .expect("account facts")
}

/// The key id of every sealed value in the database.
async fn sealing_key_ids(pool: &sqlx::PgPool) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT credential_key_id FROM provider_accounts UNION ALL SELECT totp_key_id FROM admin_users \
         WHERE totp_key_id IS NOT NULL UNION ALL SELECT credentials_key_id FROM backup_settings \
         WHERE credentials_key_id IS NOT NULL",
    )
    .fetch_all(pool)
    .await
    .expect("key ids")
}

/// The count the command printed for `kind` and `what` (`credentials: 2 resealed, …`).
fn count(output: &str, kind: &str, what: &str) -> u64 {
    let line = output.lines().find(|l| l.trim_start().starts_with(&format!("{kind}:"))).unwrap_or_else(|| {
        panic!("no line for {kind} in:\n{output}");
    });
    let before = line.split(&format!(" {what}")).next().expect("count");
    before.rsplit([' ', ',', ':']).find(|s| !s.is_empty()).and_then(|n| n.parse().ok()).unwrap_or_else(|| {
        panic!("no `{what}` count in {line:?}");
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reseal_lets_the_retired_master_key_go_and_everything_still_opens() {
    let mut g = gateway(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], &[]).await;
    let admin = Admin::login(&g).await;
    // One sealed secret of every kind besides the credentials: a TOTP secret, backup keys.
    let (mut authenticator, _) = enable_totp(&admin, PASSWORD).await;
    let backup = admin
        .put(
            "/backups/settings",
            json!({"enabled": false, "endpoint": "https://203.0.113.10", "bucket": "b",
                   "accessKeyId": "AKIA-RESEAL", "secretAccessKey": "reseal-secret-key"}),
        )
        .await;
    assert_eq!(backup.status, 200, "{}", backup.text);
    let pool = g.pool().await;
    let facts = account_facts(&pool).await;
    let revision = crate::admin_api::config_revision(&pool).await;
    g.stop();

    // Rotate: a new current key, the old one retired.
    let old_key = g.env_value("SWITCHBOARD_SECRETS_MASTER_KEY").expect("master key").to_owned();
    let new_key = MasterKey::generate("k-rotated").expect("key");
    let new_config = new_key.to_config_value().expose_secret().to_owned();
    g.set_env("SWITCHBOARD_SECRETS_MASTER_KEY", &new_config);
    g.set_env("SWITCHBOARD_SECRETS_RETIRED_MASTER_KEYS", &json!([old_key]).to_string());

    let first = g.cli(&["secrets", "reseal", "--batch", "1"], None);
    assert_eq!(
        (count(&first, "credentials", "resealed"), count(&first, "totp_secrets", "resealed")),
        (2, 1),
        "{first}"
    );
    assert_eq!(count(&first, "backup_secrets", "resealed"), 1, "{first}");
    for kind in ["credentials", "totp_secrets", "backup_secrets", "webhook_secrets"] {
        assert_eq!((count(&first, kind, "unreadable"), count(&first, kind, "remaining")), (0, 0), "{first}");
    }
    assert!(!first.contains(&new_config) && !first.contains(&old_key), "no key material is printed");
    assert_eq!(sealing_key_ids(&pool).await, vec!["k-rotated"; 4]);
    // Idempotent: nothing left to do.
    let again = g.cli(&["secrets", "reseal"], None);
    for kind in ["credentials", "totp_secrets", "backup_secrets", "webhook_secrets"] {
        assert_eq!(count(&again, kind, "resealed"), 0, "{again}");
    }
    // A re-seal is not a credential change, nor a configuration change.
    assert_eq!(account_facts(&pool).await, facts);
    assert_eq!(crate::admin_api::config_revision(&pool).await, revision);

    // Drop the retired key, restart: every secret opens with the new key alone.
    g.set_env("SWITCHBOARD_SECRETS_RETIRED_MASTER_KEYS", "[]");
    g.restart_with(&[]).await;
    let login = Admin::anonymous(&g)
        .post("/auth/login", json!({"username": "admin", "password": PASSWORD, "totp": authenticator.code()}))
        .await;
    assert_eq!(login.status, 200, "the TOTP secret opens: {}", login.text);
    let mut admin = Admin::anonymous(&g);
    admin.cookie = crate::admin_api::session_cookie(&login);
    admin.csrf = login.json()["session"]["csrfToken"].as_str().map(str::to_owned);
    let accounts = admin.ok("/accounts").await;
    assert_eq!(accounts["counts"]["normal"], 2, "both credentials open: {accounts}");
    crate::accounts::served_by(&g).await;
    let store = gateway_store::postgres::connect(g.db.url(), 2)
        .await
        .expect("connect")
        .with_keyring(Keyring::from_config(&new_config, &[]).expect("keyring"));
    let secrets = store.read_backup_secrets().await.expect("backup secrets open").expect("stored");
    assert_eq!(secrets.secret_access_key.expose_secret(), "reseal-secret-key");
    store.close().await;
}

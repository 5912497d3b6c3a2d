//! Accounts: list with derived state (Redis cooldowns), filters and cursor; detail; edits with
//! audit and revision; batch; import (dry run + commit); export; refresh now, connection test
//! and quota probe against the simulator; delete.

use serde_json::json;
use upstream_sim::AccountSpec;

use super::{Admin, PASSWORD, config_revision, gateway, last_audit, redis_cli};

#[tokio::test]
async fn the_list_carries_derived_state_counters_and_pages_with_a_cursor() {
    let g = gateway(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], &[]).await;
    let admin = Admin::login(&g).await;
    let list = admin.ok("/accounts?tz=Europe/Berlin").await;
    let items = list["items"].as_array().expect("items");
    assert_eq!(items.len(), 2);
    assert_eq!(list["counts"]["all"], 2);
    assert_eq!(list["counts"]["normal"], 2);
    let first = &items[0];
    assert_eq!(first["provider"], "openai");
    assert_eq!(first["state"], "normal");
    assert_eq!(first["effectiveCap"], 4);
    assert_eq!(first["inFlight"], 0);
    assert!(first["quota"]["windows"].is_array());
    assert_eq!(first["credential"]["state"], "active");
    assert!(first["today"]["requests"].is_u64());
    let id = first["id"].as_i64().expect("id");

    // A 429 cooldown lives in Redis only; the resolver turns it into `rate_limited` + until.
    let prefix = g.env_value("SWITCHBOARD_REDIS_KEY_PREFIX").expect("prefix").to_owned();
    let until = time::OffsetDateTime::now_utc().unix_timestamp() * 1000 + 120_000;
    redis_cli(&["HSET", &format!("{{{prefix}}}:acct:{id}"), "cool_until", &until.to_string()]);
    let list = admin.ok("/accounts?state=rate_limited").await;
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(list["items"][0]["id"], id);
    assert!(list["items"][0]["stateUntil"].is_string());
    assert_eq!(list["counts"]["rateLimited"], 1);
    assert_eq!(list["counts"]["all"], 2, "counts ignore the state filter");

    let page = admin.ok("/accounts?limit=1").await;
    assert_eq!(page["items"].as_array().map(Vec::len), Some(1));
    let cursor = page["nextCursor"].as_str().expect("more pages").to_owned();
    let next = admin.ok(&format!("/accounts?limit=1&cursor={cursor}")).await;
    assert_eq!(next["items"].as_array().map(Vec::len), Some(1));
    assert_ne!(next["items"][0]["id"], page["items"][0]["id"]);
    assert!(next["nextCursor"].is_null());
    let search = admin.ok("/accounts?search=ACCT-B").await;
    assert_eq!(search["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(admin.get("/accounts?tz=Mars/Olympus").await.status, 422);
    assert_eq!(admin.get("/accounts?cursor=%%%").await.status, 422);

    let detail = admin.ok(&format!("/accounts/{id}")).await;
    assert_eq!(detail["account"]["id"], id);
    assert!(detail["modelExclusions"].is_array());
    assert_eq!(admin.get("/accounts/424242").await.status, 404);
}

#[tokio::test]
async fn edits_replace_scheduling_facts_and_groups_in_one_audited_revision() {
    let g = gateway(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], &[]).await;
    let admin = Admin::login(&g).await;
    let pool = g.pool().await;
    let group = admin.post("/groups", json!({"name": "pool-1"})).await.json()["id"].as_i64().expect("group");
    let ids: Vec<i64> = admin.ok("/accounts").await["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|a| a["id"].as_i64())
        .collect();
    let before = config_revision(&pool).await;
    let edited = admin
        .patch(
            &format!("/accounts/{}", ids[0]),
            json!({"weight": 7, "concurrencyCap": 2, "enabled": false, "groupIds": [group]}),
        )
        .await;
    assert_eq!(edited.status, 200, "{}", edited.text);
    let body = edited.json();
    assert_eq!(body["account"]["weight"], 7);
    assert_eq!(body["account"]["concurrencyCap"], 2);
    assert_eq!(body["account"]["effectiveCap"], 2);
    assert_eq!(body["account"]["state"], "disabled");
    assert_eq!(body["account"]["groupIds"], json!([group]));
    assert_eq!(body["previous"], json!({"enabled": true, "concurrencyCap": null, "weight": 1, "groupIds": []}));
    assert_eq!(config_revision(&pool).await, before + 1);
    let (action, target, details) = last_audit(&pool).await;
    assert_eq!((action.as_str(), target.as_deref()), ("account.update", Some(ids[0].to_string().as_str())));
    assert_eq!(details["weight"], "1 -> 7");
    let inherit = admin.patch(&format!("/accounts/{}", ids[0]), json!({"concurrencyCap": null})).await;
    assert_eq!(inherit.json()["account"]["concurrencyCap"], serde_json::Value::Null);
    assert_eq!(inherit.json()["account"]["weight"], 7, "absent fields are kept");

    for (body, field) in [
        (json!({"weight": 0}), "weight"),
        (json!({"weight": 101}), "weight"),
        (json!({"concurrencyCap": 0}), "concurrencyCap"),
        (json!({"groupIds": [987654]}), "groupIds"),
        (json!({"weight": "heavy"}), "weight"),
    ] {
        let refused = admin.patch(&format!("/accounts/{}", ids[0]), body.clone()).await;
        assert_eq!(refused.status, 422, "{body}: {}", refused.text);
        assert_eq!(refused.json()["error"]["fields"][0]["field"], field, "{body}");
    }
    assert_eq!(admin.patch("/accounts/999999", json!({"weight": 2})).await.status, 404);

    let batch = admin
        .post(
            "/accounts/batch",
            json!({"ids": [ids[0], ids[1], 999999], "operation": "update", "changes": {"enabled": true, "weight": 3}}),
        )
        .await;
    assert_eq!(batch.status, 200, "{}", batch.text);
    let items = batch.json()["items"].as_array().cloned().expect("items");
    assert_eq!(items.iter().filter(|i| i["ok"] == true).count(), 2);
    let missing = items.iter().find(|i| i["id"] == 999999).expect("missing item");
    assert_eq!(missing["errorCode"], "not_found");
    assert_eq!(last_audit(&pool).await.0, "account.batch");
    let added =
        admin.post("/accounts/batch", json!({"ids": [ids[1]], "operation": "add_groups", "groupIds": [group]})).await;
    assert_eq!(added.status, 200);
    let group_view = admin.ok(&format!("/groups/{group}")).await;
    assert_eq!(group_view["memberCount"], 2);
    let removed =
        admin.post("/accounts/batch", json!({"ids": ids, "operation": "remove_groups", "groupIds": [group]})).await;
    assert_eq!(removed.status, 200);
    assert_eq!(admin.ok(&format!("/groups/{group}")).await["memberCount"], 0);
    assert_eq!(admin.post("/accounts/batch", json!({"ids": [], "operation": "delete"})).await.status, 422);
    assert_eq!(admin.post("/accounts/batch", json!({"ids": [1], "operation": "update"})).await.status, 422);

    assert_eq!(admin.delete(&format!("/accounts/{}", ids[1])).await.status, 204);
    assert_eq!(admin.get(&format!("/accounts/{}", ids[1])).await.status, 404);
    assert_eq!(last_audit(&pool).await.0, "account.delete");
    let deleted = admin.post("/accounts/batch", json!({"ids": [ids[0]], "operation": "delete"})).await;
    assert_eq!(deleted.status, 200);
    assert_eq!(admin.ok("/accounts").await["counts"]["all"], 0);
}

#[tokio::test]
async fn import_previews_then_commits_and_export_needs_confirmation_and_the_password() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[]).await;
    let admin = Admin::login(&g).await;
    let tokens = g.sim.add_account(AccountSpec::openai("acct-new")).expect("sim account");
    let content = tokens.codex_auth_json().to_string();
    let preview =
        admin.post("/accounts/import", json!({"provider": "openai", "content": content, "dryRun": true})).await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert_eq!(preview.json()["entries"][0]["action"], "create");
    assert_eq!(preview.json()["created"], json!([]));
    assert_eq!(admin.ok("/accounts").await["counts"]["all"], 1, "a dry run writes nothing");
    let imported = admin.post("/accounts/import", json!({"provider": "openai", "content": content})).await;
    assert_eq!(imported.status, 200, "{}", imported.text);
    assert_eq!(imported.json()["created"].as_array().map(Vec::len), Some(1));
    let again = admin.post("/accounts/import", json!({"provider": "openai", "content": content, "dryRun": true})).await;
    assert_eq!(again.json()["entries"][0]["action"], "update");
    assert_eq!(admin.post("/accounts/import", json!({"provider": "openai", "content": "garbage"})).await.status, 422);
    assert_eq!(admin.post("/accounts/import", json!({"provider": "xai", "content": "x"})).await.status, 422);
    assert_eq!(last_audit(&g.pool().await).await.0, "account.import");

    let unconfirmed = admin.post("/accounts/export", json!({"confirm": false, "password": PASSWORD})).await;
    assert_eq!(unconfirmed.status, 422);
    let no_password = admin.post("/accounts/export", json!({"confirm": true})).await;
    assert_eq!(no_password.status, 403);
    assert_eq!(no_password.code(), "step_up_required");
    let exported = admin.post("/accounts/export", json!({"confirm": true, "password": PASSWORD})).await;
    assert_eq!(exported.status, 200, "{}", exported.text);
    assert_eq!(exported.json()["format"], "switchboard.accounts.v1");
    assert_eq!(exported.json()["accounts"].as_array().map(Vec::len), Some(2));
    let (action, _, details) = last_audit(&g.pool().await).await;
    assert_eq!(action, "account.export");
    assert!(!details.to_string().contains(&tokens.refresh_token), "the audit row holds no token");
}

/// Refresh calls the simulator's token endpoint received (`grant_type=refresh_token`).
fn token_calls(g: &crate::gateway::Gateway) -> usize {
    g.sim
        .requests()
        .iter()
        .filter(|r| {
            r.path.ends_with("/oauth/token")
                && r.json().and_then(|b| b.get("grant_type").and_then(|v| v.as_str()).map(str::to_owned)).as_deref()
                    == Some("refresh_token")
        })
        .count()
}

async fn account_id(admin: &Admin, external: &str) -> i64 {
    let list = admin.ok(&format!("/accounts?search={external}")).await;
    list["items"][0]["id"].as_i64().expect("account id")
}

#[tokio::test]
async fn refresh_now_rotates_the_credential_and_test_and_probe_report_on_the_upstream() {
    let g = gateway(vec![AccountSpec::openai("acct-a"), AccountSpec::openai("acct-b")], &[]).await;
    let admin = Admin::login(&g).await;
    let (a, b) = (account_id(&admin, "acct-a").await, account_id(&admin, "acct-b").await);
    let pool = g.pool().await;
    let revision = |id: i64| {
        let pool = pool.clone();
        async move {
            let rev: i64 = sqlx::query_scalar("SELECT credential_revision FROM provider_accounts WHERE id = $1")
                .bind(id)
                .fetch_one(&pool)
                .await
                .expect("revision");
            rev
        }
    };
    let before = (token_calls(&g), revision(a).await);
    let refreshed = admin.post(&format!("/accounts/{a}/refresh"), json!({})).await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.text);
    let body = refreshed.json();
    assert_eq!((body["refreshed"].as_bool(), body["alreadyRenewed"].as_bool()), (Some(true), Some(false)));
    assert!(body["errorCode"].is_null());
    assert_eq!(token_calls(&g), before.0 + 1, "one refresh call upstream");
    assert_eq!(revision(a).await, before.1 + 1, "the credential was rotated");
    assert_eq!(body["credentialRevision"], before.1 + 1);

    let test = admin.post(&format!("/accounts/{a}/test"), json!({})).await;
    assert_eq!(test.status, 200, "{}", test.text);
    let test = test.json();
    assert_eq!((test["ok"].as_bool(), test["refreshed"].as_bool()), (Some(true), Some(false)), "{test}");
    assert_eq!(test["quota"]["state"], "allowed");
    assert!(test["totalMs"].is_u64());
    let probe = admin.post(&format!("/accounts/{a}/probe"), json!({})).await;
    assert_eq!(probe.status, 200, "{}", probe.text);
    assert_eq!(probe.json()["ok"], true);
    assert!(probe.json()["quota"]["windows"].is_array());

    // An expired access token: the test refreshes once and reads again.
    g.sim.expire_access_tokens("acct-a").expect("expire");
    let calls = token_calls(&g);
    let recovered = admin.post(&format!("/accounts/{a}/test"), json!({})).await.json();
    assert_eq!((recovered["ok"].as_bool(), recovered["refreshed"].as_bool()), (Some(true), Some(true)), "{recovered}");
    assert_eq!(token_calls(&g), calls + 1);

    // A refresh token the upstream refuses: a report with a stable code, not an error.
    g.sim.expire_access_tokens("acct-b").expect("expire");
    g.sim.revoke_refresh_tokens("acct-b").expect("revoke");
    let failed = admin.post(&format!("/accounts/{b}/test"), json!({})).await;
    assert_eq!(failed.status, 200, "{}", failed.text);
    let failed = failed.json();
    assert_eq!(failed["ok"], false, "{failed}");
    assert_eq!(failed["errorCode"], "credential_unusable");
    assert_eq!(failed["message"], "refresh_token_invalidated");
    let refused = admin.post(&format!("/accounts/{b}/refresh"), json!({})).await.json();
    assert_eq!(
        (refused["refreshed"].as_bool(), refused["errorCode"].as_str()),
        (Some(false), Some("credential_unusable"))
    );
    let detail = admin.ok(&format!("/accounts/{b}")).await;
    assert_ne!(detail["account"]["credential"]["state"], "active", "the refused credential is marked unusable");

    for path in ["refresh", "test", "probe"] {
        let missing = admin.post(&format!("/accounts/999999/{path}"), json!({})).await;
        assert_eq!((missing.status.as_u16(), missing.code().as_str()), (404, "not_found"), "{path}");
    }
}

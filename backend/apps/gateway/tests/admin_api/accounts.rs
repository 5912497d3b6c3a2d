//! Accounts: list with derived state (Redis cooldowns), filters and cursor; detail; edits with
//! audit and revision; batch; import (dry run + commit); export; refresh/test; delete.

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

#[tokio::test]
async fn refresh_and_test_are_documented_501_until_a_provider_implements_them() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[]).await;
    let admin = Admin::login(&g).await;
    let id = admin.ok("/accounts").await["items"][0]["id"].as_i64().expect("id");
    let refresh = admin.post(&format!("/accounts/{id}/refresh"), json!({})).await;
    assert_eq!(refresh.status, 501);
    assert_eq!(refresh.code(), "not_implemented");
    let test = admin.post(&format!("/accounts/{id}/test"), json!({"model": "gpt-5.4"})).await;
    assert_eq!(test.status, 501);
    assert_eq!(admin.post("/accounts/999999/refresh", json!({})).await.status, 404);
}

//! Groups (CRUD, members, impact, delete refused while keys are scoped) and client keys (secret
//! once, limits, scope changes audited as `routing_scope: groups -> all`, delete).

use serde_json::json;
use upstream_sim::AccountSpec;

use super::{Admin, config_revision, gateway, last_audit};

#[tokio::test]
async fn groups_are_created_edited_filled_and_deleted_with_audit_rows() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[]).await;
    let admin = Admin::login(&g).await;
    let pool = g.pool().await;
    let account = admin.ok("/accounts").await["items"][0]["id"].as_i64().expect("account");
    let created =
        admin.post("/groups", json!({"name": "team", "description": "the team", "accountIds": [account]})).await;
    assert_eq!(created.status, 201, "{}", created.text);
    let id = created.json()["id"].as_i64().expect("id");
    assert_eq!(created.json()["accountIds"], json!([account]));
    assert_eq!(last_audit(&pool).await.0, "group.create");
    assert_eq!(admin.post("/groups", json!({"name": "TEAM"})).await.status, 409, "names are unique, case-insensitive");
    let blank = admin.post("/groups", json!({"name": "  "})).await;
    assert_eq!(blank.status, 422);
    assert_eq!(blank.json()["error"]["fields"][0]["field"], "name");
    assert_eq!(admin.post("/groups", json!({"name": "x", "accountIds": [999999]})).await.status, 422);

    let before = config_revision(&pool).await;
    let edited = admin.patch(&format!("/groups/{id}"), json!({"enabled": false, "name": "team-2"})).await;
    assert_eq!(edited.status, 200, "{}", edited.text);
    assert_eq!(edited.json()["group"]["enabled"], false);
    assert_eq!(edited.json()["previous"]["name"], "team");
    assert_eq!(config_revision(&pool).await, before + 1);
    let members = admin.put(&format!("/groups/{id}/members"), json!({"accountIds": []})).await;
    assert_eq!(members.status, 200);
    assert_eq!(members.json()["previousAccountIds"], json!([account]));
    let (action, _, details) = last_audit(&pool).await;
    assert_eq!(action, "group.members");
    assert_eq!(details["removed"], json!([account]));
    assert_eq!(admin.ok("/groups").await["items"].as_array().map(Vec::len), Some(1));

    // A key scoped to the group: the group cannot be deleted, and the impact names the key.
    let key = admin.post("/keys", json!({"name": "scoped", "groupIds": [id]})).await;
    let key_id = key.json()["key"]["id"].as_i64().expect("key");
    assert_eq!(key.json()["key"]["emptyPool"], true, "a disabled, empty group is an empty pool");
    let impact = admin.ok(&format!("/groups/{id}/impact")).await;
    assert_eq!(impact["keyIds"], json!([key_id]));
    assert_eq!(impact["keysLeftEmpty"], json!([key_id]));
    let refused = admin.delete(&format!("/groups/{id}")).await;
    assert_eq!(refused.status, 409);
    assert_eq!(admin.patch(&format!("/keys/{key_id}"), json!({"groupIds": []})).await.status, 200);
    assert_eq!(admin.delete(&format!("/groups/{id}")).await.status, 204);
    assert_eq!(admin.get(&format!("/groups/{id}")).await.status, 404);
    assert_eq!(admin.get("/groups/999999/impact").await.status, 404);
    assert_eq!(last_audit(&pool).await.0, "group.delete");
}

#[tokio::test]
async fn keys_show_the_secret_once_and_audit_scope_changes() {
    let g = gateway(vec![AccountSpec::openai("acct-a")], &[]).await;
    let admin = Admin::login(&g).await;
    let pool = g.pool().await;
    let group = admin.post("/groups", json!({"name": "g1"})).await.json()["id"].as_i64().expect("group");
    let created = admin
        .post(
            "/keys",
            json!({"name": "ci", "groupIds": [group], "allowedModels": ["gpt-5.4"],
                   "limits": {"maxConcurrency": 2, "requestsPerMinute": 60, "dailyTokenBudget": 1000000},
                   "expiresAt": "2099-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let body = created.json();
    let secret = body["secret"].as_str().expect("secret").to_owned();
    let id = body["key"]["id"].as_i64().expect("id");
    assert!(secret.starts_with(body["key"]["prefix"].as_str().expect("prefix")));
    assert_eq!(body["key"]["scope"], "groups");
    assert_eq!(body["key"]["limits"]["maxConcurrency"], 2);
    assert!(!admin.get(&format!("/keys/{id}")).await.text.contains(&secret), "never shown again");
    assert!(!admin.get("/keys").await.text.contains(&secret));
    let (action, _, details) = last_audit(&pool).await;
    assert_eq!(action, "client_key.create");
    assert_eq!(details["routing_scope"], "groups");

    let widened = admin.patch(&format!("/keys/{id}"), json!({"groupIds": [], "enabled": false})).await;
    assert_eq!(widened.status, 200, "{}", widened.text);
    assert_eq!(widened.json()["key"]["scope"], "all");
    assert_eq!(widened.json()["key"]["status"], "disabled");
    assert_eq!(widened.json()["previous"]["scope"], "groups");
    let (action, target, details) = last_audit(&pool).await;
    assert_eq!(action, "client_key.update");
    assert_eq!(target.as_deref(), Some(id.to_string().as_str()));
    assert_eq!(details["routing_scope"], "groups -> all");
    let narrowed = admin.patch(&format!("/keys/{id}"), json!({"groupIds": [group]})).await;
    assert_eq!(narrowed.status, 200);
    assert_eq!(last_audit(&pool).await.2["routing_scope"], "all -> groups");
    let unlimited =
        admin.patch(&format!("/keys/{id}"), json!({"limits": {}, "allowedModels": null, "expiresAt": null})).await;
    assert_eq!(unlimited.json()["key"]["limits"]["maxConcurrency"], serde_json::Value::Null);
    assert_eq!(unlimited.json()["key"]["allowedModels"], serde_json::Value::Null);
    assert_eq!(unlimited.json()["key"]["expiresAt"], serde_json::Value::Null);

    for (body, field) in [
        (json!({"name": ""}), "name"),
        (json!({"allowedModels": []}), "allowedModels"),
        (json!({"limits": {"maxConcurrency": 0}}), "limits.maxConcurrency"),
        (json!({"groupIds": [424242]}), "groupIds"),
        (json!({"expiresAt": "tomorrow"}), "expiresAt"),
    ] {
        let refused = admin.patch(&format!("/keys/{id}"), body.clone()).await;
        assert_eq!(refused.status, 422, "{body}: {}", refused.text);
        assert_eq!(refused.json()["error"]["fields"][0]["field"], field, "{body}");
    }
    let list = admin.ok("/keys?limit=1").await;
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
    assert!(list["nextCursor"].is_string(), "the harness key and this one");
    // The search matches names and prefixes; a random prefix may contain "ci" too.
    let found = admin.ok("/keys?search=ci").await;
    let found = found["items"].as_array().expect("items");
    assert!(found.iter().any(|k| k["id"] == json!(id)), "the key named ci is found: {found:?}");
    let matches = |k: &serde_json::Value| {
        ["name", "prefix"].iter().any(|f| k[*f].as_str().is_some_and(|v| v.to_lowercase().contains("ci")))
    };
    assert!(found.iter().all(matches), "only keys whose name or prefix holds ci: {found:?}");
    assert_eq!(admin.ok("/keys?search=no-such-key").await["items"].as_array().map(Vec::len), Some(0));

    // Enabled again, the key works on the client API (once the snapshot reloaded) until deleted.
    assert_eq!(admin.patch(&format!("/keys/{id}"), json!({"enabled": true})).await.status, 200);
    let client = g.client();
    let url = format!("{}/v1/models", g.url);
    test_support::wait_until("the key to be accepted", std::time::Duration::from_secs(10), || {
        let request = client.get(&url).bearer_auth(&secret).send();
        async move { request.await.ok().filter(|r| r.status() == 200).map(|_| ()) }
    })
    .await
    .expect("the enabled key works");
    assert_eq!(admin.delete(&format!("/keys/{id}")).await.status, 204);
    assert_eq!(admin.get(&format!("/keys/{id}")).await.status, 404);
    assert_eq!(last_audit(&pool).await.0, "client_key.delete");
}

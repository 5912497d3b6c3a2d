//! Importing never burns a credential (the simulator's refresh tokens are single use, like
//! OpenAI's): the admin API exchanges a refresh-token line exactly once and stores the rotated
//! pair; a dry run never exchanges anything and says so; a line the upstream refuses does not
//! cost the others their exchanged tokens.

use serde_json::json;
use upstream_sim::AccountSpec;

use super::{Admin, gateway};
use crate::accounts::served_by;
use crate::gateway::Gateway;

/// Refresh-token grants the simulator's token endpoint received for `refresh_token`.
fn exchanges_of(g: &Gateway, refresh_token: &str) -> usize {
    g.sim
        .requests()
        .iter()
        .filter(|r| {
            let body = r.json().unwrap_or_default();
            r.path.ends_with("/oauth/token")
                && body["grant_type"] == "refresh_token"
                && body["refresh_token"].as_str() == Some(refresh_token)
        })
        .count()
}

fn token_calls(g: &Gateway) -> usize {
    g.sim.requests().iter().filter(|r| r.path.ends_with("/oauth/token")).count()
}

#[tokio::test]
async fn an_api_import_of_a_refresh_token_exchanges_it_once_and_stores_the_rotated_pair() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let tokens = g.sim.add_account(AccountSpec::openai("acct-rt-api")).expect("sim account");
    let imported = admin
        .post("/accounts/import", json!({"provider": "openai", "content": format!("{}\n", tokens.refresh_token)}))
        .await;
    assert_eq!(imported.status, 200, "{}", imported.text);
    assert_eq!(exchanges_of(&g, &tokens.refresh_token), 1, "exchanged exactly once");
    let body = imported.json();
    assert_eq!(body["dryRun"], false);
    assert_eq!(body["created"].as_array().map(Vec::len), Some(1), "{body}");
    let entry = &body["entries"][0];
    assert_eq!((entry["action"].as_str(), entry["externalAccountId"].as_str()), (Some("create"), Some("acct-rt-api")));
    assert_eq!(entry["credentialState"], "active");
    let id = body["created"][0].as_i64().expect("account id");

    assert_eq!(served_by(&g).await, "acct-rt-api");
    // What was stored is the rotated pair: its refresh token is still good upstream.
    let refreshed = admin.post(&format!("/accounts/{id}/refresh"), json!({})).await.json();
    assert_eq!(refreshed["refreshed"], true, "{refreshed}");
}

#[tokio::test]
async fn a_dry_run_exchanges_nothing_and_says_the_refresh_token_was_only_checked() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let rt = g.sim.add_account(AccountSpec::openai("acct-rt-dry")).expect("sim account");
    let at = g.sim.add_account(AccountSpec::openai("acct-at-dry")).expect("sim account");
    let content = format!("{}\n{}\n", rt.refresh_token, at.access_token);
    let calls = token_calls(&g);
    let preview =
        admin.post("/accounts/import", json!({"provider": "openai", "content": content, "dryRun": true})).await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert_eq!(token_calls(&g), calls, "a dry run sends nothing upstream");
    let body = preview.json();
    assert_eq!(body["dryRun"], true);
    let entries = body["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 2, "{body}");
    assert_eq!(entries[0]["action"], "exchange", "{body}");
    assert!(entries[0]["externalAccountId"].is_null(), "the account is known only after the exchange");
    assert_eq!(
        (entries[1]["action"].as_str(), entries[1]["externalAccountId"].as_str()),
        (Some("create"), Some("acct-at-dry"))
    );
    assert_eq!(admin.ok("/accounts").await["counts"]["all"], 0, "a dry run writes nothing");

    // The refresh token is still unspent: the real import exchanges it (once) and succeeds.
    let imported = admin.post("/accounts/import", json!({"provider": "openai", "content": content})).await;
    assert_eq!(imported.status, 200, "{}", imported.text);
    assert_eq!(imported.json()["created"].as_array().map(Vec::len), Some(2), "{}", imported.text);
    assert_eq!(exchanges_of(&g, &rt.refresh_token), 1);

    // A malformed entry is refused by the dry run too, before anything is sent.
    let bad = admin
        .post("/accounts/import", json!({"provider": "openai", "content": "{\"tokens\": {}}", "dryRun": true}))
        .await;
    assert_eq!((bad.status.as_u16(), bad.code().as_str()), (422, "credential_rejected"), "{}", bad.text);
}

#[tokio::test]
async fn a_refused_line_does_not_cost_the_other_lines_their_exchanged_tokens() {
    let g = gateway(vec![], &[]).await;
    let admin = Admin::login(&g).await;
    let tokens = g.sim.add_account(AccountSpec::openai("acct-rt-mixed")).expect("sim account");
    let content = format!("{}\nrt-the-upstream-never-issued\n", tokens.refresh_token);
    let imported = admin.post("/accounts/import", json!({"provider": "openai", "content": content})).await;
    assert_eq!(imported.status, 200, "{}", imported.text);
    let body = imported.json();
    assert_eq!(body["created"].as_array().map(Vec::len), Some(1), "{body}");
    assert_eq!(body["entries"][0]["action"], "create");
    assert_eq!(body["entries"][1]["action"], "failed");
    assert_eq!(body["entries"][1]["error"], "invalid_grant", "{body}");
    assert!(!imported.text.contains("rt-the-upstream-never-issued"), "the answer never echoes a token");
    assert_eq!(exchanges_of(&g, &tokens.refresh_token), 1);
    assert_eq!(served_by(&g).await, "acct-rt-mixed");

    // Every line refused: nothing stored, the request's fault, 422.
    let refused =
        admin.post("/accounts/import", json!({"provider": "openai", "content": "rt-unknown-1\nrt-unknown-2\n"})).await;
    assert_eq!((refused.status.as_u16(), refused.code().as_str()), (422, "credential_rejected"), "{}", refused.text);
    assert_eq!(admin.ok("/accounts").await["counts"]["all"], 1);
}

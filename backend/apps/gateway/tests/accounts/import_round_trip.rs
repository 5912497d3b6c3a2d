//! Every import format round-trips: import → the account serves a request → export → the
//! export re-imports onto the same account (nothing created).

use serde_json::{Value, json};
use upstream_sim::{AccountSpec, TokenSet};

use super::{account_count, served_by};
use crate::gateway::Gateway;

fn ids(output: &str, label: &str) -> Vec<String> {
    let start = output.find(&format!("{label} [")).expect(label) + label.len() + 2;
    let end = output[start..].find(']').expect("]") + start;
    output[start..end].split(',').filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// Imports `input`, checks a request is served by `account`, exports, re-imports the export.
async fn round_trip(gateway: &Gateway, account: &str, input: &[u8]) {
    let imported = gateway.cli(&["account", "import", "-"], Some(input));
    let created = ids(&imported, "created");
    assert_eq!(created.len(), 1, "{imported}");
    assert_eq!(served_by(gateway).await, account);

    let export = gateway.cli(&["account", "export", "--yes-export-secrets"], None);
    let bundle: Value = serde_json::from_str(&export).expect("the export is JSON");
    assert_eq!(bundle["format"], "switchboard.accounts.v1");
    assert_eq!(bundle["accounts"].as_array().map(Vec::len), Some(1));
    let again = gateway.cli(&["account", "import", "-"], Some(export.as_bytes()));
    assert_eq!((ids(&again, "created"), ids(&again, "updated")), (vec![], created.clone()), "{again}");
    assert_eq!(account_count(gateway).await, 1);
    // The re-imported credential still serves.
    assert_eq!(served_by(gateway).await, account);
}

async fn gateway_with_upstream_account(id: &str) -> (Gateway, TokenSet) {
    let gateway = Gateway::start(vec![]).await;
    let tokens = gateway.sim.add_account(AccountSpec::openai(id)).expect("account");
    (gateway, tokens)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_codex_auth_json_round_trips() {
    let (gateway, tokens) = gateway_with_upstream_account("acct-auth-json").await;
    let input = serde_json::to_vec(&tokens.codex_auth_json()).expect("json");
    round_trip(&gateway, "acct-auth-json", &input).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_bundle_round_trips() {
    let (gateway, tokens) = gateway_with_upstream_account("acct-bundle").await;
    let bundle = json!({"format": "switchboard.accounts.v1", "accounts": [{"provider": "openai", "tokens": {
        "id_token": tokens.id_token, "access_token": tokens.access_token,
        "refresh_token": tokens.refresh_token, "account_id": tokens.account_id}}]});
    round_trip(&gateway, "acct-bundle", bundle.to_string().as_bytes()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cliproxyapi_file_round_trips() {
    let (gateway, tokens) = gateway_with_upstream_account("acct-cpa").await;
    let file = json!([{"type": "codex", "email": "acct-cpa@sim.test", "id_token": tokens.id_token,
        "access_token": tokens.access_token, "refresh_token": tokens.refresh_token,
        "account_id": tokens.account_id, "expired": "2099-01-01T00:00:00Z"}]);
    round_trip(&gateway, "acct-cpa", file.to_string().as_bytes()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_token_line_round_trips() {
    let (gateway, tokens) = gateway_with_upstream_account("acct-rt-line").await;
    let lines = format!("# one refresh token\n{}\n", tokens.refresh_token);
    round_trip(&gateway, "acct-rt-line", lines.as_bytes()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_access_token_line_round_trips() {
    let (gateway, tokens) = gateway_with_upstream_account("acct-at-line").await;
    round_trip(&gateway, "acct-at-line", format!("{}\n", tokens.access_token).as_bytes()).await;
}

//! The request profile follows the appcast; a failed check keeps the last good profile.

use gateway_core::catalog::CatalogSource;
use provider_openai::request_profile::PINNED_CODEX_VERSION;
use provider_openai::version_check::{VersionCheckError, VersionCheckOutcome, is_newer, latest_version};
use upstream_sim::{AccountSpec, SettingsPatch};

use crate::support::World;

#[test]
fn the_newest_version_of_an_appcast_is_read() {
    let feed = r#"<rss><channel>
        <item><title>26.1.2</title><sparkle:shortVersionString>26.1.2</sparkle:shortVersionString></item>
        <item><title>Codex</title><enclosure url="x" sparkle:shortVersionString="26.10.1"/></item>
        <item><title>not a version</title></item>
    </channel></rss>"#;
    assert_eq!(latest_version(feed).as_deref(), Some("26.10.1"));
    assert_eq!(latest_version(r#"{"version":"0.140.0","build":"1"}"#).as_deref(), Some("0.140.0"));
    assert_eq!(latest_version(r#"{"version":"latest"}"#), None);
    assert_eq!(latest_version("<rss></rss>"), None);
    assert!(is_newer("0.136.0", "0.135.9"));
    assert!(is_newer("26.311.21342", "0.135.0"));
    assert!(!is_newer("0.135.0", "0.135.0"));
    assert!(!is_newer("0.99.0", "0.135.0"));
}

#[tokio::test]
async fn a_newer_appcast_version_becomes_the_profile_of_the_next_requests() {
    let world = World::start().await;
    world.sim.add_account(AccountSpec::openai("acct-1")).expect("account");
    let (account, _) = world.account(AccountSpec::openai("acct-2")).await;
    let provider = world.provider();
    let check = provider.version_check(&world.sim.appcast_url()).expect("allowed url");
    let outcome = check.check().await.expect("check");
    assert_eq!(outcome, VersionCheckOutcome::Updated { from: PINNED_CODEX_VERSION.into(), to: "26.311.21342".into() });
    assert_eq!(provider.profile().current().version, "26.311.21342");
    assert!(provider.profile().current().user_agent.starts_with("codex_cli_rs/26.311.21342 "));

    // The next upstream call carries it.
    let snapshots = world.snapshots().await;
    let entry = snapshots.current().account(account).cloned().expect("entry");
    provider.fetch_catalog(&entry, None).await.expect("catalog");
    let request = world.sim.requests().into_iter().rev().find(|r| r.path.ends_with("/codex/models")).expect("fetch");
    assert!(
        request.query.as_deref().unwrap_or_default().contains("client_version=26.311.21342"),
        "{:?}",
        request.query
    );
    assert_eq!(request.header("version"), Some("26.311.21342"));

    // An older appcast never moves it back.
    world.sim.update_settings(SettingsPatch { appcast_version: Some("0.1.0".into()), ..SettingsPatch::default() });
    assert!(matches!(check.check().await, Ok(VersionCheckOutcome::Unchanged { .. })));
    assert_eq!(provider.profile().current().version, "26.311.21342");
}

#[tokio::test]
async fn a_failed_check_keeps_the_last_good_profile() {
    let world = World::start().await;
    let provider = world.provider();
    let missing = provider.version_check(&format!("{}/no-such-appcast.xml", world.sim.base_url())).expect("url");
    assert_eq!(missing.check().await, Err(VersionCheckError::Status(404)));
    assert_eq!(provider.profile().current().version, PINNED_CODEX_VERSION);
    let closed = provider.version_check("http://127.0.0.1:9/appcast.xml").expect("loopback allowed in tests");
    assert!(matches!(closed.check().await, Err(VersionCheckError::Unreachable(_))));
    assert_eq!(provider.profile().current().version, PINNED_CODEX_VERSION);
}

#[tokio::test]
async fn appcast_addresses_pass_the_ssrf_guard() {
    let world = World::start().await;
    let provider = world.provider();
    assert!(provider.version_check("http://appcast.example.com/feed.xml").is_err(), "plain http off loopback");
    assert!(provider.version_check("ftp://127.0.0.1/feed.xml").is_err());
    assert!(provider.version_check("https://user:pw@example.com/feed.xml").is_err());
    assert!(provider.version_check("https://example.com/feed.xml?channel=stable").is_ok());
}

#[tokio::test]
async fn the_npm_metadata_of_openai_codex_moves_the_profile_forward() {
    let world = World::start().await;
    let provider = world.provider();
    // The npm registry's `latest` document of `@openai/codex`, from the local fake only.
    let url = format!("{}/@openai/codex/latest", world.sim.npm_registry_url());
    let check = provider.version_check(&url).expect("allowed url");
    let outcome = check.check().await.expect("check");
    assert_eq!(outcome, VersionCheckOutcome::Updated { from: PINNED_CODEX_VERSION.into(), to: "0.172.0".into() });
    let profile = provider.profile().current();
    assert!(profile.user_agent.starts_with("codex_cli_rs/0.172.0 ("), "{}", profile.user_agent);
    let scoped = provider.version_check(&format!("{}/@openai%2Fcodex/latest", world.sim.npm_registry_url()));
    assert!(matches!(scoped.expect("url").check().await, Ok(VersionCheckOutcome::Unchanged { .. })));
}

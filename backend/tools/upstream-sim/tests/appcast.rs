use serde_json::Value;
use upstream_sim::SettingsPatch;

use crate::support::{client, sim};

#[tokio::test]
async fn appcast_and_npm_latest_serve_the_configured_versions() {
    let sim = sim().await;
    sim.update_settings(SettingsPatch {
        appcast_version: Some("26.400.1".into()),
        grok_cli_version: Some("0.3.1".into()),
        ..Default::default()
    });
    let xml = client().get(sim.appcast_url()).send().await.expect("request").text().await.expect("body");
    assert!(xml.contains("<sparkle:shortVersionString>26.400.1</sparkle:shortVersionString>"));
    let doc: Value = client()
        .get(format!("{}/appcast.json", sim.base_url()))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(doc["version"], "26.400.1");
    let latest: Value = client()
        .get(format!("{}/@xai-official%2Fgrok/latest", sim.npm_registry_url()))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(latest["version"], "0.3.1");
    let packument: Value = client()
        .get(format!("{}/@xai-official/grok", sim.npm_registry_url()))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(packument["dist-tags"]["latest"], "0.3.1");
    sim.shutdown().await;
}

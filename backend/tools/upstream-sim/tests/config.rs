use upstream_sim::{Provider, SimConfig, Simulator};

#[tokio::test]
async fn yaml_config_with_accounts_and_prefixes() {
    let dir = std::env::temp_dir().join(format!("upstream-sim-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("sim.yaml");
    std::fs::write(
        &path,
        "codex_base_path: /chatgpt\noauth_base_path: /auth\nxai_prefix: grok\naccounts:\n  - id: one\n    plan: pro\n    quota: {primary_used_percent: 12.5}\n  - id: two\n    provider: xai\n    challenged: true\nsettings:\n  ws_max_age_secs: 60\n  tls_fault: untrusted\n",
    )
    .expect("write config");
    let config = SimConfig::from_file(&path).expect("config parses");
    let sim = Simulator::start(config).await.expect("starts");
    assert!(sim.codex_base_url().ends_with("/chatgpt/codex"));
    assert!(sim.oauth_issuer_url().ends_with("/auth"));
    assert!(sim.xai_base_url().ends_with("/grok/v1"));
    let one = sim.account("one").expect("account one");
    assert_eq!(one.plan, "pro");
    assert_eq!(one.primary.used_percent, 12.5);
    assert_eq!(sim.account("two").expect("account two").provider, Provider::Xai);
    assert_eq!(sim.settings().ws_max_age_secs, 60);
    assert!(sim.account("two").expect("account two").challenged);
    assert_eq!(sim.settings().tls_fault, upstream_sim::TlsFault::Untrusted);
    sim.shutdown().await;
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn unknown_config_keys_are_rejected() {
    let error = serde_json::from_str::<SimConfig>(r#"{"listen":"127.0.0.1:0","bogus":1}"#);
    assert!(error.is_err());
}

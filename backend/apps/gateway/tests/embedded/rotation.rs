//! Master-key rotation in the embedded mode, as docs/operations.md describes it: configure the
//! new key with the file's key retired, reseal, then write the new key into `master.key`.

use super::Install;

#[tokio::test]
async fn a_rotated_master_key_reseals_the_sqlite_file_and_replaces_the_key_file() {
    let mut install = Install::new().await;
    install.serve().await;
    install.import_account("acct-rotate");
    let key = install.cli(&["key", "create", "laptop"], None).trim().to_owned();
    install.stop();

    let key_file = install.data_dir().join("master.key");
    let old = std::fs::read_to_string(&key_file).expect("key file").trim().to_owned();
    let new = install.cli(&["master-key"], None).trim().to_owned();
    let retired = format!("[\"{old}\"]");
    let rotation = [
        ("SWITCHBOARD_SECRETS_MASTER_KEY", new.as_str()),
        ("SWITCHBOARD_SECRETS_RETIRED_MASTER_KEYS", retired.as_str()),
    ];
    let output = install.run(&["secrets", "reseal"], None, &rotation);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("credentials: 1 resealed"), "{output:?}");

    // The new key alone (the file, no settings) opens what the reseal wrote.
    std::fs::write(&key_file, format!("{new}\n")).expect("new key file");
    install.serve().await;
    let response = install.responses(&key, "rotated").await;
    assert_eq!(response.status(), 200, "{}", install.server_log());
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["output"][0]["content"][0]["text"], "rotated", "{body}");
}

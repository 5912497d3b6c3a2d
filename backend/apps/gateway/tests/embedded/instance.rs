//! The command line finds the instance `serve` uses by default, and refuses to write under
//! another master key.

use super::Install;

#[tokio::test]
async fn instance_names_where_the_embedded_install_lives() {
    let install = Install::new().await;
    let out = install.cli(&["instance"], None);
    let dir = std::path::absolute(install.data_dir()).expect("absolute");
    assert!(out.contains("mode=embedded\n"), "{out}");
    assert!(out.contains(&format!("url={}\n", install.url())), "{out}");
    assert!(out.contains(&format!("data_dir={}\n", dir.display())), "{out}");
    assert!(out.contains(&format!("admin_password_file={}\n", dir.join("initial-admin-password").display())), "{out}");
    assert!(out.contains(&format!("master_key_file={}\n", dir.join("master.key").display())), "{out}");
    assert!(!install.data_dir().exists(), "`instance` opens and creates nothing");
}

#[tokio::test]
async fn commands_with_no_extra_settings_reach_the_running_server() {
    let mut install = Install::new().await;
    install.serve().await;
    install.import_account("acct-cli");
    let key = install.cli(&["key", "create", "laptop"], None).trim().to_owned();
    install.wait_key_served(&key).await;
    let response = install.responses(&key, "found the instance").await;
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["output"][0]["content"][0]["text"], "found the instance", "{body}");
    let accounts = install.cli(&["account", "list"], None);
    assert_eq!(accounts.lines().count(), 2, "a header and the one account: {accounts}");
    // The server runs in small pages (docs/performance.md, Tuning notes: The gateway turns
    // transparent huge pages off for itself).
    let pid = install.server_pid().expect("serving");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    assert!(status.lines().any(|line| line.split_whitespace().eq(["THP_enabled:", "0"])), "{status}");
}

#[tokio::test]
async fn a_command_under_another_master_key_refuses_to_write() {
    let mut install = Install::new().await;
    install.serve().await;
    install.import_account("acct-key");
    let other = install.cli(&["master-key"], None).trim().to_owned();
    let output = install.run(&["key", "create", "wrong"], None, &[("SWITCHBOARD_SECRETS_MASTER_KEY", &other)]);
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("`secrets.master_key`") && stderr.contains("master key of this data directory"),
        "{stderr}"
    );
    assert!(!stderr.contains(&other), "the key is not echoed");
    let tokens = install.sim.add_account(upstream_sim::AccountSpec::openai("acct-key-2")).expect("sim account");
    let auth = serde_json::to_vec(&tokens.codex_auth_json()).expect("json");
    let output = install.run(&["account", "import", "-"], Some(&auth), &[("SWITCHBOARD_SECRETS_MASTER_KEY", &other)]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(install.cli(&["account", "list"], None).lines().count(), 2, "nothing was imported");
}

#[tokio::test]
async fn a_data_directory_that_lost_its_key_file_is_refused() {
    let mut install = Install::new().await;
    install.serve().await;
    install.import_account("acct-lost");
    install.stop();
    std::fs::remove_file(install.data_dir().join("master.key")).expect("remove");
    let output = install.run(&["account", "list"], None, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("master.key") && stderr.contains("is missing"), "{stderr}");
    assert!(!install.data_dir().join("master.key").exists(), "no new key replaces the lost one");
}

#[tokio::test]
async fn a_password_reset_beside_the_running_server_says_its_sessions_end_at_a_restart() {
    let mut install = Install::new().await;
    install.serve().await;
    let output = install.run(&["admin", "reset-password", "admin"], None, &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("end when it restarts"), "{stderr}");
    let password = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    assert!(password.len() >= 10, "a generated password is printed once");
}

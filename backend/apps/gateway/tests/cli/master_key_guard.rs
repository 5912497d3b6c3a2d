//! Production mode: a command whose master key opens none of the stored credentials refuses to
//! write (it would seal under a key the server cannot open), naming `secrets.master_key`.

use upstream_sim::AccountSpec;

use crate::gateway::Gateway;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_under_a_key_that_opens_nothing_stored_refuses_to_import() {
    let mut gateway = Gateway::start(vec![AccountSpec::openai("acct-a")]).await;
    assert_eq!(gateway.stop(), Some(0));
    let wrong_key = gateway.cli(&["master-key"], None).trim().to_owned();
    let tokens = gateway.sim.add_account(AccountSpec::openai("acct-b")).expect("sim account");
    let auth = serde_json::to_vec(&tokens.codex_auth_json()).expect("json");

    let mut command = gateway.command();
    command.args(["account", "import", "-"]).env("SWITCHBOARD_SECRETS_MASTER_KEY", &wrong_key);
    command.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
    command.stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("starts");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &auth).expect("stdin");
    let output = child.wait_with_output().expect("ends");
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`secrets.master_key`") && stderr.contains("opens none of the 1 stored"), "{stderr}");
    assert!(!stderr.contains(&wrong_key), "the key is not echoed");
    // Nothing was imported: with the server's key the store still holds one account.
    let accounts = gateway.cli(&["account", "list"], None);
    assert_eq!(accounts.lines().count(), 2, "{accounts}");
}

//! `switchboard account import` never burns a credential: every refresh token it exchanged is
//! stored, even when another line of the same input is refused upstream (the simulator's
//! refresh tokens are single use, like OpenAI's).

use std::io::Write;
use std::process::Stdio;

use upstream_sim::AccountSpec;

use super::{account_count, served_by};
use crate::gateway::Gateway;

fn import(gateway: &Gateway, input: &str) -> (bool, String, String) {
    let mut child = gateway
        .command()
        .args(["account", "import", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("import starts");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    let output = child.wait_with_output().expect("import ends");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cli_import_keeps_every_exchanged_token_when_another_line_is_refused() {
    let gateway = Gateway::start(vec![]).await;
    let tokens = gateway.sim.add_account(AccountSpec::openai("acct-cli-rt")).expect("account");
    let (ok, stdout, stderr) = import(&gateway, &format!("{}\nrt-the-upstream-never-issued\n", tokens.refresh_token));
    assert!(!ok, "a refused line makes the command fail: {stdout}{stderr}");
    assert!(stderr.contains("entry 2") && stderr.contains("invalid_grant"), "{stderr}");
    assert!(!format!("{stdout}{stderr}").contains("rt-the-upstream-never-issued"), "no token is echoed");
    let exchanges = gateway
        .sim
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/oauth/token") && r.body.contains(&tokens.refresh_token))
        .count();
    assert_eq!(exchanges, 1, "the good refresh token was exchanged exactly once");
    assert_eq!(account_count(&gateway).await, 1, "its rotated pair was stored: {stdout}{stderr}");
    assert!(stdout.contains("created [1]"), "{stdout}");
    assert_eq!(served_by(&gateway).await, "acct-cli-rt");
}

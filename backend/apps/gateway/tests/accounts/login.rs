//! `switchboard account login` against the simulator's issuer: the pasted-callback flow and the
//! device-code flow each end with an account that serves a request; a callback that belongs to
//! no live flow is refused.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Stdio};

use upstream_sim::AccountSpec;

use super::{account_count, served_by};
use crate::gateway::Gateway;

/// Follows an authorize address the way a browser would, up to the callback address.
async fn consent(authorize_url: &str) -> String {
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let response = client.get(authorize_url).send().await.expect("authorize");
    assert_eq!(response.status(), 302);
    response.headers()["location"].to_str().expect("location").to_owned()
}

fn spawn_login(gateway: &Gateway, args: &[&str]) -> (Child, BufReader<ChildStdout>) {
    let mut child = gateway
        .command()
        .args(["account", "login"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("login starts");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    (child, stdout)
}

/// The next stdout line (read off the async runtime).
async fn next_line(stdout: BufReader<ChildStdout>) -> (String, BufReader<ChildStdout>) {
    tokio::task::spawn_blocking(move || {
        let mut stdout = stdout;
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read");
        (line.trim().to_owned(), stdout)
    })
    .await
    .expect("reader")
}

async fn finish(mut child: Child, stdout: BufReader<ChildStdout>) -> (bool, String, String) {
    tokio::task::spawn_blocking(move || {
        let mut rest = String::new();
        let mut stdout = stdout;
        let _ = std::io::Read::read_to_string(&mut stdout, &mut rest);
        let mut stderr = String::new();
        if let Some(mut err) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut err, &mut stderr);
        }
        let status = child.wait().expect("exit");
        (status.success(), rest, stderr)
    })
    .await
    .expect("waiter")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pasted_callback_adds_a_usable_account_and_a_stale_one_is_refused() {
    let gateway = Gateway::start(vec![]).await;
    gateway.sim.add_account(AccountSpec::openai("acct-oauth")).expect("account");

    let (mut child, stdout) = spawn_login(&gateway, &[]);
    let (authorize_url, stdout) = next_line(stdout).await;
    let callback = consent(&authorize_url).await;
    assert!(callback.starts_with("http://localhost:1455/auth/callback?code="), "{callback}");
    writeln!(child.stdin.as_mut().expect("stdin"), "{callback}").expect("paste");
    let (ok, out, err) = finish(child, stdout).await;
    assert!(ok, "login failed: {out}{err}");
    assert!(out.starts_with("added account "), "{out}");
    assert_eq!(served_by(&gateway).await, "acct-oauth");

    // The same callback again, in a new login: its state names no live flow.
    let (mut child, stdout) = spawn_login(&gateway, &[]);
    let (_, stdout) = next_line(stdout).await;
    writeln!(child.stdin.as_mut().expect("stdin"), "{callback}").expect("paste");
    let (ok, out, err) = finish(child, stdout).await;
    assert!(!ok, "a replayed callback is refused: {out}");
    assert!(err.contains("oauth_flow_not_found"), "{err}");
    assert_eq!(account_count(&gateway).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_code_login_adds_a_usable_account() {
    let gateway = Gateway::start(vec![]).await;
    gateway.sim.add_account(AccountSpec::openai("acct-device")).expect("account");
    let (child, stdout) = spawn_login(&gateway, &["--device", "--interval", "1"]);
    let (user_code, stdout) = next_line(stdout).await;
    assert!(!user_code.is_empty());
    gateway.sim.approve_device(Some(&user_code), "acct-device").expect("approve");
    let (ok, out, err) = finish(child, stdout).await;
    assert!(ok, "device login failed: {out}{err}");
    assert!(out.starts_with("added account "), "{out}");
    assert_eq!(served_by(&gateway).await, "acct-device");
}

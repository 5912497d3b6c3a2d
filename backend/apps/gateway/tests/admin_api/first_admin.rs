//! The first admin with a generated password: printed once and saved to a private file in the
//! data directory (the startup message says where); `switchboard admin reset-password` sets a
//! new password as a normal password change and ends the admin's sessions.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use super::{Admin, PASSWORD, gateway, last_audit};
use crate::gateway::Gateway;

/// The generated password as printed once on stderr (`password `…``).
fn printed_password(log: &str) -> String {
    let line = log.lines().find(|l| l.contains("first admin created")).expect("the bootstrap line");
    let start = line.find("password `").expect("password") + "password `".len();
    line[start..].split('`').next().expect("closing backtick").to_owned()
}

#[tokio::test]
async fn a_generated_first_admin_password_is_saved_to_a_private_file_named_at_startup() {
    let g = Gateway::start(vec![]).await;
    let log = g.log();
    let password = printed_password(&log);
    let dir = std::path::PathBuf::from(g.env_value("SWITCHBOARD_SERVER_DATA_DIR").expect("data dir"));
    let file = dir.join("initial-admin-password");
    let saved = std::fs::read_to_string(&file).expect("the password file exists");
    assert_eq!(saved.trim_end(), password);
    let mode = std::fs::metadata(&file).expect("file").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the file is private");
    let dir_mode = std::fs::metadata(&dir).expect("dir").permissions().mode() & 0o777;
    assert_eq!(dir_mode, 0o700, "the data directory is private");
    assert!(log.contains(&file.display().to_string()), "the startup message names the file: {log}");
    assert_eq!(log.matches(&password).count(), 1, "the password is printed once, no more: {log}");
    Admin::login_as(&g, "admin", &password).await;
}

/// Runs `switchboard ARGS` with `stdin`; (success, stdout, stderr).
fn run(g: &Gateway, args: &[&str], stdin: &str) -> (bool, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = g
        .command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    let output = child.wait_with_output().expect("the command ends");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}

#[tokio::test]
async fn reset_password_is_a_normal_password_change_that_ends_the_admins_sessions() {
    let g = gateway(vec![], &[]).await;
    let session = Admin::login(&g).await;
    let other = Admin::login(&g).await;
    assert_eq!(session.get("/auth/session").await.status, 200);

    // A generated password, printed once on stdout; the username is matched case-insensitively.
    let (ok, stdout, stderr) = run(&g, &["admin", "reset-password", "ADMIN"], "");
    assert!(ok, "{stdout}{stderr}");
    let generated = stdout.trim().to_owned();
    assert!(generated.len() >= 10 && !generated.contains(' '), "{stdout}");
    assert!(stderr.contains("2 session(s) ended"), "{stderr}");
    assert!(!stderr.contains(&generated), "the password goes to stdout only");
    for ended in [&session, &other] {
        assert_eq!(ended.get("/auth/session").await.status, 401, "the admin's sessions ended");
    }
    let old = Admin::anonymous(&g).post("/auth/login", json!({"username": "admin", "password": PASSWORD})).await;
    assert_eq!(old.status, 401, "the old password no longer works");
    Admin::login_as(&g, "admin", &generated).await;
    let (action, target, details) = last_audit(&g.pool().await).await;
    assert_eq!((action.as_str(), target.as_deref()), ("admin_user.password_reset", Some("1")));
    assert!(!details.to_string().contains(&generated), "{details}");

    // A chosen password from standard input: nothing is printed on stdout.
    let (ok, stdout, stderr) = run(&g, &["admin", "reset-password", "admin", "--stdin"], "chosen-password-4711\n");
    assert!(ok, "{stdout}{stderr}");
    assert_eq!(stdout, "");
    Admin::login_as(&g, "admin", "chosen-password-4711").await;

    let (ok, _, stderr) = run(&g, &["admin", "reset-password", "admin", "--stdin"], "short\n");
    assert!(!ok && stderr.contains("10"), "a too short password is refused: {stderr}");
    let (ok, _, stderr) = run(&g, &["admin", "reset-password", "nobody"], "");
    assert!(!ok && stderr.contains("nobody"), "an unknown admin is named: {stderr}");
    Admin::login_as(&g, "admin", "chosen-password-4711").await;
}

//! `switchboard healthcheck` (the image's HEALTHCHECK) and the version the binary reports.

use std::net::SocketAddr;
use std::process::Command;

use switchboard::commands::healthcheck::probe_address;

fn switchboard(env: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env_clear()
        .envs(env.iter().copied())
        .args(args)
        .output()
        .expect("the switchboard binary runs")
}

#[test]
fn an_unspecified_listen_address_is_asked_on_loopback() {
    let cases = [
        ("0.0.0.0:8080", "127.0.0.1:8080"),
        ("[::]:9000", "[::1]:9000"),
        ("10.1.2.3:8080", "10.1.2.3:8080"),
        ("127.0.0.1:1", "127.0.0.1:1"),
    ];
    for (listen, asked) in cases {
        let listen: SocketAddr = listen.parse().expect("address");
        assert_eq!(probe_address(listen).to_string(), asked);
    }
}

#[test]
fn the_healthcheck_fails_when_nothing_answers() {
    let port = test_support::free_port().to_string();
    let listen = format!("0.0.0.0:{port}");
    let output = switchboard(&[("SWITCHBOARD_SERVER_LISTEN", &listen)], &["healthcheck", "--timeout-seconds", "2"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&format!("http://127.0.0.1:{port}/readyz")), "{stderr}");
}

#[test]
fn the_version_override_changes_the_reported_version_and_a_bad_one_is_ignored() {
    let plain = switchboard(&[], &["version"]);
    assert_eq!(String::from_utf8_lossy(&plain.stdout).trim(), format!("switchboard {}", env!("CARGO_PKG_VERSION")));
    let overridden = switchboard(&[("SWITCHBOARD_BUILD_VERSION_OVERRIDE", "9.8.7-rc.1")], &["version"]);
    assert_eq!(String::from_utf8_lossy(&overridden.stdout).trim(), "switchboard 9.8.7-rc.1");
    let bad = switchboard(&[("SWITCHBOARD_BUILD_VERSION_OVERRIDE", "latest")], &["version"]);
    assert_eq!(String::from_utf8_lossy(&bad.stdout).trim(), format!("switchboard {}", env!("CARGO_PKG_VERSION")));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a version"), "{bad:?}");
}

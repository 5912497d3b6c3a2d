use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One HTTP/1.1 GET over a fresh connection; `None` when the connection is refused.
pub fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let status = response.split_whitespace().nth(1)?.parse().ok()?;
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default().to_owned();
    Some((status, body))
}

fn start(port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env_clear()
        .env("SWITCHBOARD_SERVER_LISTEN", format!("127.0.0.1:{port}"))
        .env("SWITCHBOARD_SERVER_DRAIN_TIMEOUT_SECONDS", "5")
        // A client's key in the same shell is not configuration and must not stop the gateway.
        .env("SWITCHBOARD_KEY", "sk-not-configuration")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the switchboard binary starts")
}

fn wait_for<T>(what: &str, deadline: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + deadline;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn sigterm(child: &Child) {
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(status.success());
}

#[test]
fn serves_health_and_exits_0_on_sigterm_refusing_new_connections() {
    let port = test_support::free_port();
    let mut child = start(port);
    let (status, body) = wait_for("/healthz", Duration::from_secs(20), || http_get(port, "/healthz"));
    assert_eq!(status, 200);
    assert!(body.contains("\"ok\""), "{body}");
    let (status, body) = http_get(port, "/readyz").expect("readyz answers");
    assert_eq!(status, 200, "{body}");

    sigterm(&child);
    let exit = wait_for("the process to exit", Duration::from_secs(10), || child.try_wait().expect("wait works"));
    assert_eq!(exit.code(), Some(0));
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err(), "new connections must be refused after shutdown");
}

//! The hostile connections against scripted servers: when each is closed is what they report.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use loadgen::attack::{self, AttackKind, Target};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

fn target(addr: std::net::SocketAddr) -> Target {
    Target {
        addr,
        authority: addr.to_string(),
        path: "/v1/responses".to_owned(),
        upload_bytes: 64 * 1024 * 1024,
        trickle: Duration::from_millis(50),
        give_up: Duration::from_secs(10),
    }
}

/// Accepts connections and closes each `after` its accept, reading what arrives meanwhile.
async fn closing_after(after: Duration) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 1024];
                let _ =
                    tokio::time::timeout(after, async { while stream.read(&mut buf).await.is_ok_and(|n| n > 0) {} })
                        .await;
            });
        }
    });
    addr
}

#[tokio::test]
async fn idle_and_slow_head_connections_report_when_the_server_closed_them() {
    let addr = closing_after(Duration::from_millis(300)).await;
    let opened = AtomicU64::new(0);
    for kind in [AttackKind::Idle, AttackKind::SlowHeader] {
        let closed = attack::run(kind, &target(addr), &opened).await;
        let lifetime = closed.lifetime.expect("closed");
        assert!(lifetime >= Duration::from_millis(250), "{kind:?}: {lifetime:?}");
        assert!(!closed.connect_failed && closed.status.is_none());
    }
    assert_eq!(opened.load(std::sync::atomic::Ordering::Relaxed), 2);
}

#[tokio::test]
async fn an_upload_reports_the_answer_and_how_much_it_got_to_send() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.expect("accept");
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).await.is_ok_and(|n| n == 1) {
            head.push(byte[0]);
        }
        let _ = stream.write_all(b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
    });
    let closed = attack::run(AttackKind::Upload, &target(addr), &AtomicU64::new(0)).await;
    assert_eq!(closed.status, Some(401));
    assert!(closed.lifetime.is_some(), "closed");
    assert!(closed.bytes_sent < 64 * 1024 * 1024, "sent {}", closed.bytes_sent);
}

#[tokio::test]
async fn a_connection_never_closed_is_abandoned_and_reported_so() {
    let addr = closing_after(Duration::from_secs(30)).await;
    let mut target = target(addr);
    target.give_up = Duration::from_millis(300);
    let closed = attack::run(AttackKind::Idle, &target, &AtomicU64::new(0)).await;
    assert!(closed.lifetime.is_none());
    assert!(!closed.connect_failed);
}

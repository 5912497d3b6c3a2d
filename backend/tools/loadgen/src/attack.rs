//! Hostile connections for the attack drills. Each one opens a socket, misbehaves in one way and
//! records when and how the server ended it:
//!
//! - `slow_header`: a request head that never ends, one header line per trickle interval;
//! - `idle`: a connection that sends nothing;
//! - `upload`: an unauthenticated request announcing a large body and sending it as fast as the
//!   server takes it.
//!
//! A connection's lifetime is measured from the start of its connect to the server's close (EOF
//! or reset) as this side sees it: never shorter than the server's own view of it.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The kinds of attack, as JSON keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttackKind {
    SlowHeader,
    Upload,
    Idle,
}

impl AttackKind {
    pub const ALL: [AttackKind; 3] = [AttackKind::SlowHeader, AttackKind::Upload, AttackKind::Idle];

    pub fn as_str(self) -> &'static str {
        match self {
            AttackKind::SlowHeader => "slow_header",
            AttackKind::Upload => "upload",
            AttackKind::Idle => "idle",
        }
    }
}

/// Where and how to attack.
#[derive(Debug, Clone)]
pub struct Target {
    pub addr: SocketAddr,
    /// `host:port` for the Host header.
    pub authority: String,
    /// The request path of the slow heads and the uploads.
    pub path: String,
    /// The announced (and attempted) size of an upload.
    pub upload_bytes: u64,
    /// The pause between two header lines of a slow head.
    pub trickle: Duration,
    /// A connection still open this long after its connect is abandoned (counted as not closed).
    pub give_up: Duration,
}

/// What happened to one hostile connection.
#[derive(Debug, Clone, Copy)]
pub struct Closed {
    pub kind: AttackKind,
    /// From the connect to the server's close; `None`: still open when abandoned, or the connect
    /// failed.
    pub lifetime: Option<Duration>,
    pub connect_failed: bool,
    /// The status of an answer the server sent before closing, if any.
    pub status: Option<u16>,
    /// Body bytes written (uploads).
    pub bytes_sent: u64,
}

impl Closed {
    fn failed(kind: AttackKind) -> Self {
        Self { kind, lifetime: None, connect_failed: true, status: None, bytes_sent: 0 }
    }
}

/// One hostile connection from connect to close; `opened` counts it once it is connected.
pub async fn run(kind: AttackKind, target: &Target, opened: &AtomicU64) -> Closed {
    // The lifetime counts from before the connect: the server's clock for the connection starts
    // later (at accept), so a close can never look earlier than it was, however late this task
    // resumes after the connect on a busy machine.
    let started = Instant::now();
    let Ok(stream) = TcpStream::connect(target.addr).await else { return Closed::failed(kind) };
    let _ = stream.set_nodelay(true);
    opened.fetch_add(1, Ordering::Relaxed);
    let (status, bytes_sent, closed) = match kind {
        AttackKind::SlowHeader => slow_header(stream, target).await,
        AttackKind::Idle => idle(stream, target).await,
        AttackKind::Upload => upload(stream, target).await,
    };
    let lifetime = closed.map(|at| at.saturating_duration_since(started));
    Closed { kind, lifetime, connect_failed: false, status, bytes_sent }
}

type Ending = (Option<u16>, u64, Option<Instant>);

async fn idle(mut stream: TcpStream, target: &Target) -> Ending {
    let (status, closed) = read_until_closed(&mut stream, target.give_up).await;
    (status, 0, closed)
}

async fn slow_header(stream: TcpStream, target: &Target) -> Ending {
    let (mut reader, mut writer) = stream.into_split();
    let head = format!("POST {} HTTP/1.1\r\nHost: {}\r\n", target.path, target.authority);
    let trickle = async {
        if writer.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        for line in 0u64.. {
            tokio::time::sleep(target.trickle).await;
            if writer.write_all(format!("x-drill-{line}: 1\r\n").as_bytes()).await.is_err() {
                return;
            }
        }
    };
    let (status, closed) = until_read_side_closes(&mut reader, target.give_up, trickle).await;
    (status, 0, closed)
}

async fn upload(stream: TcpStream, target: &Target) -> Ending {
    let (mut reader, mut writer) = stream.into_split();
    let head = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        target.path, target.authority, target.upload_bytes
    );
    let total = target.upload_bytes;
    let sent = AtomicU64::new(0);
    let send = async {
        if writer.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        let chunk = vec![b' '; 64 * 1024];
        while sent.load(Ordering::Relaxed) < total {
            let left = total - sent.load(Ordering::Relaxed);
            let n = chunk.len().min(usize::try_from(left).unwrap_or(chunk.len()));
            if writer.write_all(&chunk[..n]).await.is_err() {
                return;
            }
            sent.fetch_add(n as u64, Ordering::Relaxed);
        }
    };
    let (status, closed) = until_read_side_closes(&mut reader, target.give_up, send).await;
    (status, sent.load(Ordering::Relaxed), closed)
}

/// Runs `misbehave` (the writing side) until the server closes the connection as the reading
/// side sees it, or `give_up` passes.
async fn until_read_side_closes(
    reader: &mut (impl AsyncReadExt + Unpin),
    give_up: Duration,
    misbehave: impl Future<Output = ()>,
) -> (Option<u16>, Option<Instant>) {
    let reading = read_until_closed(reader, give_up);
    tokio::pin!(reading);
    tokio::select! {
        ended = &mut reading => ended,
        // The writing side stopped (a failed write, or a finished upload): the close, or the
        // answer, is still for the reading side to see.
        () = misbehave => reading.await,
    }
}

/// Reads (and discards) until the peer closes or `give_up` passes; returns the status of an
/// answer if one came and when the close was seen.
async fn read_until_closed(
    reader: &mut (impl AsyncReadExt + Unpin),
    give_up: Duration,
) -> (Option<u16>, Option<Instant>) {
    let mut first = Vec::new();
    let mut buf = [0u8; 4096];
    let read = async {
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => return Instant::now(),
                Ok(n) => {
                    if first.len() < 16 {
                        first.extend_from_slice(&buf[..n.min(16)]);
                    }
                }
            }
        }
    };
    let closed = tokio::time::timeout(give_up, read).await.ok();
    (status_of(&first), closed)
}

/// `HTTP/1.1 401 …` → 401.
fn status_of(first: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(first.get(9..12)?).ok()?;
    first.starts_with(b"HTTP/1.").then(|| text.parse().ok()).flatten()
}

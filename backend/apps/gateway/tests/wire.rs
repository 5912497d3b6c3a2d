//! Raw HTTP/1.1 over a socket, for what an HTTP client library hides: a head sent without its
//! body, broken chunked framing, connections held open, when exactly a connection closes.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The `host:port` of a gateway URL.
pub fn authority(url: &str) -> &str {
    url.trim_start_matches("http://")
}

pub async fn connect(url: &str) -> TcpStream {
    let stream = TcpStream::connect(authority(url)).await.expect("connect to the gateway");
    stream.set_nodelay(true).expect("nodelay");
    stream
}

/// One response as text: status line, headers (names lower-cased) and body.
#[derive(Debug, Default)]
pub struct Answer {
    /// An interim `100 Continue` came before the answer.
    pub continued: bool,
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// Reads one response (Content-Length or chunked body), skipping `100 Continue`; `None` if the
/// connection closed first.
pub async fn read_answer(stream: &mut (impl AsyncRead + Unpin)) -> Option<Answer> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut continued = false;
    loop {
        let interim = buf.starts_with(b"HTTP/1.1 100").then(|| buf.windows(4).position(|w| w == b"\r\n\r\n"));
        if let Some(Some(end)) = interim {
            buf.drain(..end + 4);
            continued = true;
            continue;
        }
        if let Some(answer) = parse(&buf) {
            return Some(Answer { continued, ..answer });
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn parse(buf: &[u8]) -> Option<Answer> {
    let text = String::from_utf8_lossy(buf).into_owned();
    let end = text.find("\r\n\r\n")?;
    let head = text[..end].to_owned();
    let status = head.split(' ').nth(1).and_then(|s| s.parse::<u16>().ok()).unwrap_or_default();
    let mut answer = Answer { continued: false, status, head, body: String::new() };
    let rest = &text[end + 4..];
    if let Some(length) = answer.header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        answer.body = rest.get(..length)?.to_owned();
        return Some(answer);
    }
    if answer.header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        let mut body = String::new();
        let mut rest = rest;
        loop {
            let (size, after) = rest.split_once("\r\n")?;
            let size = usize::from_str_radix(size.trim(), 16).ok()?;
            if size == 0 {
                answer.body = body;
                return Some(answer);
            }
            body.push_str(after.get(..size)?);
            rest = after.get(size + 2..)?;
        }
    }
    Some(answer)
}

/// Reads until the peer closes (a reset counts as closed); returns what arrived.
pub async fn read_to_close(stream: &mut (impl AsyncRead + Unpin)) -> Vec<u8> {
    let mut out = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return out,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Sends `request` as is and reads the answer within `deadline`.
pub async fn exchange(stream: &mut TcpStream, request: &[u8], deadline: Duration) -> Option<Answer> {
    stream.write_all(request).await.expect("write the request");
    tokio::time::timeout(deadline, read_answer(stream)).await.expect("answered within the deadline")
}

//! Which HTTP version a client connection speaks, read from its first bytes without taking
//! them off the socket (`peek`), so that hyper's HTTP/1.1 reader gets the whole first read into
//! its 8 KB buffer. hyper-util's protocol detection hands the 24 bytes it looked at to the
//! connection first and the rest in a second read, which grows that buffer to 16 KB on every
//! connection; at 10,000 open streams that is 80 MB (decision 0301).

use tokio::net::TcpStream;

/// The first bytes of every HTTP/2 connection with prior knowledge (RFC 9113 §3.4).
pub const HTTP2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// What the first bytes of a connection say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Http1,
    Http2,
    /// The bytes so far are the start of the HTTP/2 preface, or none came before the peer
    /// closed: hyper-util's detection reads on and decides.
    Undecided,
}

/// Classifies what a peek returned.
pub fn classify(first: &[u8]) -> Protocol {
    if first.is_empty() {
        return Protocol::Undecided;
    }
    let compared = first.len().min(HTTP2_PREFACE.len());
    if first[..compared] != HTTP2_PREFACE[..compared] {
        return Protocol::Http1;
    }
    if compared == HTTP2_PREFACE.len() { Protocol::Http2 } else { Protocol::Undecided }
}

/// Waits for the connection's first bytes and classifies them; a peek that fails leaves the
/// decision (and the error) to the connection itself.
pub async fn detect(stream: &TcpStream) -> Protocol {
    let mut first = [0u8; HTTP2_PREFACE.len()];
    match stream.peek(&mut first).await {
        Ok(n) => classify(&first[..n]),
        Err(_) => Protocol::Undecided,
    }
}

//! An HTTP CONNECT tunnel through an egress proxy (RFC 9110 §9.3.6), with Basic
//! `Proxy-Authorization` when the proxy URL has user info.

use base64::Engine;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::Target;
use crate::error::SendError;
use crate::proxy::ProxyUrl;

/// Largest proxy answer head read.
const MAX_HEAD: usize = 8 * 1024;

/// Why a CONNECT exchange failed; `auth` when the proxy refused the credentials (407).
pub struct Refused {
    pub auth: bool,
    pub error: SendError,
}

pub async fn tunnel(tcp: TcpStream, target: &Target, proxy: &ProxyUrl) -> Result<TcpStream, SendError> {
    exchange(tcp, target, proxy).await.map_err(|refused| refused.error)
}

/// The CONNECT exchange; the credentials travel with the request itself.
pub async fn exchange(mut tcp: TcpStream, target: &Target, proxy: &ProxyUrl) -> Result<TcpStream, Refused> {
    let failed = |reason: String| Refused {
        auth: false,
        error: SendError::ProxyFailed(format!("proxy {}: {reason}", proxy.redacted())),
    };
    let authority = target.authority();
    let mut head = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n");
    if let Some(user) = proxy.username() {
        let pair = format!("{user}:{}", proxy.password().unwrap_or(""));
        let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
        head.push_str(&format!("Proxy-Authorization: Basic {encoded}\r\n"));
    }
    head.push_str("\r\n");
    tcp.write_all(head.as_bytes()).await.map_err(|e| failed(format!("writing CONNECT failed: {e}")))?;
    // Read byte by byte up to the end of the head: nothing of the tunnel may be consumed.
    let mut answer = Vec::with_capacity(256);
    while !answer.ends_with(b"\r\n\r\n") {
        if answer.len() >= MAX_HEAD {
            return Err(failed("the CONNECT answer head is too long".to_owned()));
        }
        let byte = tcp.read_u8().await.map_err(|e| failed(format!("reading the CONNECT answer failed: {e}")))?;
        answer.push(byte);
    }
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut response = httparse::Response::new(&mut headers);
    match response.parse(&answer) {
        Ok(httparse::Status::Complete(_)) => {}
        _ => return Err(failed("the CONNECT answer is not HTTP".to_owned())),
    }
    match response.code {
        Some(code) if (200..300).contains(&code) => Ok(tcp),
        Some(407) => Err(Refused { auth: true, ..failed("proxy authentication refused (407)".to_owned()) }),
        Some(code) => Err(failed(format!("CONNECT refused ({code})"))),
        None => Err(failed("the CONNECT answer has no status".to_owned())),
    }
}

//! Raw TCP servers that misbehave in ways hyper would not: reset mid-stream, close without a
//! response, or never answer.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{Server, listener};

#[derive(Debug, Clone, Copy)]
pub enum Misbehaviour {
    /// Sends SSE response headers and half an event, then resets the connection (RST).
    ResetMidStream,
    /// Closes the connection as soon as the request arrives, without a response.
    CloseWithoutResponse,
    /// Reads the request and never answers.
    Silent,
}

pub async fn serve(misbehaviour: Misbehaviour) -> Server {
    let listener = listener().await;
    let addr = listener.local_addr().expect("bound address");
    let accept = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(handle(stream, misbehaviour));
        }
    });
    Server::new(addr, accept)
}

async fn handle(mut stream: TcpStream, misbehaviour: Misbehaviour) {
    let mut buffer = [0u8; 4096];
    let _ = stream.read(&mut buffer).await;
    match misbehaviour {
        Misbehaviour::ResetMidStream => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
            let half = "event: response.created\nda";
            let _ = stream.write_all(format!("{head}{:x}\r\n{half}\r\n", half.len()).as_bytes()).await;
            let _ = stream.flush().await;
            tokio::time::sleep(Duration::from_millis(20)).await;
            let _ = stream.set_zero_linger();
            drop(stream);
        }
        Misbehaviour::CloseWithoutResponse => drop(stream),
        Misbehaviour::Silent => {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
    }
}

/// An address where nothing listens: bound once to get a free port, then released.
pub async fn refused_addr() -> std::net::SocketAddr {
    let listener = listener().await;
    listener.local_addr().expect("bound address")
}

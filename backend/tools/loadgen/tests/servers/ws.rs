//! A WebSocket server in the shape of the Responses API over WebSocket: for every text frame
//! received it sends some delta frames and then one terminal frame.

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};

use super::{Server, listener};

#[derive(Debug, Clone)]
pub struct Script {
    /// Delta frames before the terminal one.
    pub deltas: usize,
    /// The terminal frame's `type`.
    pub terminal: &'static str,
    /// Refuse the upgrade (401) unless the request has this header.
    pub require_header: Option<&'static str>,
}

pub async fn serve(script: Script) -> Server {
    let listener = listener().await;
    let addr = listener.local_addr().expect("bound address");
    let accept = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let script = script.clone();
            tokio::spawn(async move {
                let required = script.require_header;
                #[expect(clippy::result_large_err, reason = "the callback type is tungstenite's")]
                let check = move |request: &Request, mut response: Response| -> Result<Response, ErrorResponse> {
                    if let Some(name) = required
                        && !request.headers().contains_key(name)
                    {
                        let mut refusal = ErrorResponse::new(Some("missing header".to_owned()));
                        *refusal.status_mut() = http::StatusCode::UNAUTHORIZED;
                        return Err(refusal);
                    }
                    response.headers_mut().insert("x-request-id", http::HeaderValue::from_static("ws_1"));
                    Ok(response)
                };
                let Ok(mut socket) = tokio_tungstenite::accept_hdr_async(stream, check).await else { return };
                while let Some(Ok(message)) = socket.next().await {
                    if !message.is_text() {
                        continue;
                    }
                    for i in 0..script.deltas {
                        let frame = format!("{{\"type\":\"response.output_text.delta\",\"delta\":\"d{i}\"}}");
                        if socket.send(Message::text(frame)).await.is_err() {
                            return;
                        }
                    }
                    let terminal = format!("{{\"type\":\"{}\",\"response\":{{\"id\":\"r\"}}}}", script.terminal);
                    if socket.send(Message::text(terminal)).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    Server::new(addr, accept)
}

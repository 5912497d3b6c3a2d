//! WebSocket over the same connector (TCP, egress proxy, the shared TLS roots; no ALPN, as
//! Codex does), via tungstenite with a bounded read buffer: tungstenite's default allocates
//! 128 KiB per socket up front, here [`READ_BUFFER_BYTES`].

use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::connect::{Alpn, Connector, Stream, Target};
use crate::error::SendError;
use crate::proxy::ProxyUrl;

/// Read buffer per upstream socket; messages larger than it take several reads.
pub const READ_BUFFER_BYTES: usize = 8 * 1024;
/// Bytes a socket gathers before writing (a message is flushed when sent anyway).
pub const WRITE_BUFFER_BYTES: usize = 8 * 1024;

pub type Socket = WebSocketStream<Stream>;

/// Why a handshake did not produce a socket.
#[derive(Debug)]
pub enum HandshakeError {
    /// No connection (connect, proxy, TLS).
    Connect(SendError),
    /// The server answered the upgrade with another status (401, 426, 429 …): its answer, with
    /// headers and body, for the caller to classify.
    Refused(Box<http::Response<Option<Vec<u8>>>>),
    /// The handshake failed otherwise (bad answer, reset).
    Failed(String),
}

/// `config` with the bounded buffers (message and frame limits are the caller's).
pub fn bounded(config: WebSocketConfig) -> WebSocketConfig {
    config.read_buffer_size(READ_BUFFER_BYTES).write_buffer_size(WRITE_BUFFER_BYTES)
}

/// Opens `request` (a `ws(s)://` URL with the caller's headers) through `proxy` when given.
pub async fn connect(
    connector: &Connector,
    request: http::Request<()>,
    proxy: Option<&ProxyUrl>,
    config: WebSocketConfig,
) -> Result<(Socket, http::Response<Option<Vec<u8>>>), HandshakeError> {
    let target = Target::from_uri(request.uri()).map_err(HandshakeError::Connect)?;
    let stream = connector.connect(&target, proxy, Alpn::WebSocket).await.map_err(HandshakeError::Connect)?;
    match tokio_tungstenite::client_async_with_config(request, stream, Some(bounded(config))).await {
        Ok(done) => Ok(done),
        Err(tungstenite::Error::Http(response)) => Err(HandshakeError::Refused(Box::new(*response))),
        Err(error) => Err(HandshakeError::Failed(error.to_string())),
    }
}

//! Reading a request body once: into one buffer of the declared size (`content-length`), each
//! chunk copied in as it arrives and then dropped — no list of chunks joined at the end. A body
//! that arrives as one chunk is kept as it came.

use axum::body::Body;
use axum::http::HeaderMap;
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;

/// Why a body could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError {
    /// More than the limit arrived.
    TooLarge,
    /// The client's body broke off (connection closed, malformed chunking).
    Broken,
}

/// The `content-length` the client declared, if any.
pub fn declared_length(headers: &HeaderMap) -> Option<usize> {
    headers.get("content-length").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok())
}

/// Reads at most `limit` bytes of `body`; `declared` (at most `limit`) sizes the buffer.
pub async fn read(body: Body, declared: Option<usize>, limit: usize) -> Result<Bytes, ReadError> {
    let mut chunks = body.into_data_stream();
    let mut first: Option<Bytes> = None;
    let mut buffer: Option<BytesMut> = None;
    let mut total = 0usize;
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|_| ReadError::Broken)?;
        total = total.saturating_add(chunk.len());
        if total > limit {
            return Err(ReadError::TooLarge);
        }
        if let Some(buffer) = buffer.as_mut() {
            buffer.extend_from_slice(&chunk);
        } else if let Some(head) = first.take() {
            let size = declared.unwrap_or(0).clamp(total, limit);
            let mut started = BytesMut::with_capacity(size);
            started.extend_from_slice(&head);
            started.extend_from_slice(&chunk);
            buffer = Some(started);
        } else {
            first = Some(chunk);
        }
    }
    Ok(match (buffer, first) {
        (Some(buffer), _) => buffer.freeze(),
        (None, Some(first)) => first,
        (None, None) => Bytes::new(),
    })
}

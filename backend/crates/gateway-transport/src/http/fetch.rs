//! A whole small exchange under one deadline: send, read the body up to a limit. For the calls
//! off the hot path (OAuth, usage, catalog, version check).

use std::time::Duration;

use bytes::Bytes;
use http::HeaderMap;

use super::{HttpClient, HttpRequest};
use crate::error::SendError;
use crate::proxy::ProxyUrl;

/// A complete answer.
pub struct Fetched {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("no complete answer before the deadline")]
    Timeout,
    #[error("{0}")]
    Send(SendError),
    #[error("the answer broke: {0}")]
    Body(String),
}

impl HttpClient {
    /// Sends `request` and reads its body (at most `limit` bytes), all within `timeout`.
    pub async fn fetch(
        &self,
        request: HttpRequest,
        proxy: Option<&ProxyUrl>,
        timeout: Duration,
        limit: usize,
    ) -> Result<Fetched, FetchError> {
        let exchange = async {
            let response = self.send(request, proxy).await.map_err(FetchError::Send)?;
            let (status, headers) = (response.status.as_u16(), response.headers.clone());
            let body = response.bytes(limit).await.map_err(FetchError::Body)?;
            Ok(Fetched { status, headers, body })
        };
        tokio::time::timeout(timeout, exchange).await.map_err(|_| FetchError::Timeout)?
    }
}

//! The HTTP side of alert webhooks: [`HttpWebhookTransport`] implements the core's
//! `WebhookTransport` over the gateway's one outbound stack, `gateway-transport` (decision
//! 0341). The composition root hands in an [`HttpClient`] whose connector checks every address
//! it connects to with the admin SSRF guard's `address_refused` (host names and IP literals
//! alike, where the socket opens). No proxy and no redirects: the transport follows none, and a
//! redirect could lead past the guard.

use async_trait::async_trait;
use gateway_core::alerts::{WebhookError, WebhookRequest, WebhookTransport};
use gateway_transport::{HttpClient, HttpRequest, SendError};
use http::{HeaderName, HeaderValue};

const USER_AGENT: &str = concat!("switchboard/", env!("CARGO_PKG_VERSION"), " (alert webhook)");
/// The most of an answer's body read (the status is what counts; the rest is dropped).
const ANSWER_LIMIT: usize = 4 * 1024;

pub struct HttpWebhookTransport {
    http: HttpClient,
}

impl HttpWebhookTransport {
    /// `http`'s connector must carry the SSRF guard's address check for direct targets.
    pub fn new(http: HttpClient) -> Self {
        Self { http }
    }
}

#[async_trait]
impl WebhookTransport for HttpWebhookTransport {
    async fn post(&self, request: WebhookRequest) -> Result<u16, WebhookError> {
        // Messages never carry the URL: it may hold a token in its query.
        let mut outgoing =
            HttpRequest::post(&request.url).map_err(|_| WebhookError::Unreachable("invalid URL".to_owned()))?;
        outgoing = outgoing.header(http::header::USER_AGENT, HeaderValue::from_static(USER_AGENT));
        for (name, value) in &request.headers {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|_| WebhookError::Unreachable(format!("invalid header name `{name}`")))?;
            let value = HeaderValue::try_from(value.as_str())
                .map_err(|_| WebhookError::Unreachable(format!("invalid value for header `{name}`")))?;
            outgoing = outgoing.header(name, value);
        }
        let outgoing = outgoing.body(request.body);
        let deadline = tokio::time::Instant::now() + request.timeout;
        let response = match tokio::time::timeout_at(deadline, self.http.send(outgoing, None)).await {
            Err(_) => return Err(WebhookError::Timeout),
            Ok(Err(SendError::Refused(_))) => return Err(WebhookError::Refused),
            Ok(Err(error)) => return Err(WebhookError::Unreachable(error.to_string())),
            Ok(Ok(response)) => response,
        };
        let status = response.status.as_u16();
        // A little of the answer is read so an HTTP/1.1 connection can be reused; the status is
        // the outcome whether or not the body arrives in time.
        let _ = tokio::time::timeout_at(deadline, response.prefix(ANSWER_LIMIT)).await;
        Ok(status)
    }
}

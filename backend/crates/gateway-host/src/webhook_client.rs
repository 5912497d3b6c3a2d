//! The HTTP side of alert webhooks: [`HttpWebhookTransport`] implements the core's
//! `WebhookTransport` over one reqwest client. Every address it connects to passes the
//! `refused` check the composition root hands in (the admin SSRF guard's `address_refused`):
//! host names through a resolver that drops refused addresses, IP literals before the request.
//! No redirects are followed (a redirect could lead past the guard).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use async_trait::async_trait;
use gateway_core::alerts::{WebhookError, WebhookRequest, WebhookTransport};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Whether the guard refuses an address.
pub type AddressCheck = Arc<dyn Fn(IpAddr) -> bool + Send + Sync>;

pub struct HttpWebhookTransport {
    client: reqwest::Client,
    refused: AddressCheck,
}

struct GuardedResolver {
    refused: AddressCheck,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let refused = self.refused.clone();
        Box::pin(async move {
            let found = tokio::net::lookup_host((name.as_str(), 0)).await?;
            let allowed: Vec<SocketAddr> = found.filter(|addr| !refused(addr.ip())).collect();
            if allowed.is_empty() {
                return Err(Box::new(std::io::Error::other("every address of the webhook host is refused"))
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

impl HttpWebhookTransport {
    pub fn new(refused: AddressCheck) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(GuardedResolver { refused: refused.clone() }))
            .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION"), " (alert webhook)"))
            .build()
            .map_err(|e| format!("webhook client: {e}"))?;
        Ok(Self { client, refused })
    }
}

#[async_trait]
impl WebhookTransport for HttpWebhookTransport {
    async fn post(&self, request: WebhookRequest) -> Result<u16, WebhookError> {
        let url = url::Url::parse(&request.url).map_err(|_| WebhookError::Unreachable("invalid URL".to_owned()))?;
        let literal = match url.host() {
            Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
            _ => None,
        };
        if literal.is_some_and(|ip| (self.refused)(ip)) {
            return Err(WebhookError::Refused);
        }
        let mut builder = self.client.post(url).timeout(request.timeout).body(request.body);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        match builder.send().await {
            Ok(response) => Ok(response.status().as_u16()),
            Err(error) if error.is_timeout() => Err(WebhookError::Timeout),
            // Without the URL: it may carry a token in its query.
            Err(error) => Err(WebhookError::Unreachable(error.without_url().to_string())),
        }
    }
}

//! Why a request did not produce a response, in the terms failover needs (SPEC §3 invariant 3:
//! an unclear outcome is never assumed unsent).

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Nothing was sent: connect, proxy, TLS, or a pooled connection that refused the request
    /// before any byte of it left.
    #[error("not sent: {0}")]
    NotSent(String),
    /// Nothing was sent: the TLS handshake or the server's certificate failed.
    #[error("TLS failed: {0}")]
    TlsFailed(String),
    /// Nothing was sent: the upstream's name did not resolve.
    #[error("name not resolved: {0}")]
    NameNotResolved(String),
    /// The egress proxy is down or refused the tunnel: nothing was sent, and the account is
    /// not at fault.
    #[error("proxy failed: {0}")]
    ProxyFailed(String),
    /// Nothing was sent: every address of the target is refused by the connector's target
    /// check (the SSRF guard's address rules, decision 0341).
    #[error("refused: {0}")]
    Refused(String),
    /// The request may have reached the server.
    #[error("outcome unknown: {0}")]
    Ambiguous(String),
    /// This process ran out of descriptors or local ports: not the upstream's fault.
    #[error("local resources exhausted: {0}")]
    LocalResources(String),
}

impl SendError {
    /// Whether the request certainly never reached the upstream.
    pub fn is_not_sent(&self) -> bool {
        !matches!(self, Self::Ambiguous(_))
    }
}

/// Connect errors that say this host is out of resources rather than the upstream failing.
pub(crate) fn local_exhaustion(error: &std::io::Error) -> bool {
    // EMFILE, ENFILE, EADDRNOTAVAIL, ENOBUFS
    matches!(error.raw_os_error(), Some(24 | 23 | 99 | 105))
}

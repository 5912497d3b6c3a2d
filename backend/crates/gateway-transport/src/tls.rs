//! The one TLS configuration: the platform's root certificates (Mozilla's bundled roots when
//! the platform has none) plus an optional extra CA (a PEM file, for a private upstream or a
//! test CA), rustls with aws-lc. Two client configurations share the same roots: ALPN
//! `h2, http/1.1` for HTTP and no ALPN for WebSocket (as Codex does).

use std::path::Path;
use std::sync::Arc;

use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("the extra CA file `{path}` cannot be read: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("the extra CA holds no usable certificate: {0}")]
    NoCertificate(String),
    #[error("the TLS configuration cannot be built: {0}")]
    Config(String),
}

/// The shared root store and the client configurations built on it.
#[derive(Clone)]
pub struct TlsRoots {
    http: Arc<rustls::ClientConfig>,
    websocket: Arc<rustls::ClientConfig>,
}

impl std::fmt::Debug for TlsRoots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsRoots").finish_non_exhaustive()
    }
}

impl TlsRoots {
    /// Platform roots plus the certificates of `extra_ca_file` when given.
    pub fn new(extra_ca_file: Option<&Path>) -> Result<Self, TlsError> {
        let extra = match extra_ca_file {
            None => Vec::new(),
            Some(path) => {
                let unreadable = |reason: String| TlsError::Unreadable { path: path.display().to_string(), reason };
                let pem = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
                parse_pem(&pem)?
            }
        };
        Self::from_roots(platform_roots(), extra)
    }

    /// Platform roots plus the certificates in `pem` (tests: a simulator's CA).
    pub fn with_extra_pem(pem: &str) -> Result<Self, TlsError> {
        Self::from_roots(platform_roots(), parse_pem(pem.as_bytes())?)
    }

    /// Only the certificates in `pem`: nothing else is trusted (tests).
    pub fn only_pem(pem: &str) -> Result<Self, TlsError> {
        Self::from_roots(RootCertStore::empty(), parse_pem(pem.as_bytes())?)
    }

    fn from_roots(mut roots: RootCertStore, extra: Vec<CertificateDer<'static>>) -> Result<Self, TlsError> {
        for cert in extra {
            roots.add(cert).map_err(|e| TlsError::NoCertificate(e.to_string()))?;
        }
        let roots = Arc::new(roots);
        let build = |alpn: Vec<Vec<u8>>| -> Result<Arc<rustls::ClientConfig>, TlsError> {
            let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
            let mut config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| TlsError::Config(e.to_string()))?
                .with_root_certificates(roots.clone())
                .with_no_client_auth();
            config.alpn_protocols = alpn;
            Ok(Arc::new(config))
        };
        Ok(Self { http: build(vec![b"h2".to_vec(), b"http/1.1".to_vec()])?, websocket: build(Vec::new())? })
    }

    /// ALPN `h2, http/1.1`.
    pub fn http_config(&self) -> Arc<rustls::ClientConfig> {
        self.http.clone()
    }

    /// No ALPN (a WebSocket upgrade is HTTP/1.1).
    pub fn websocket_config(&self) -> Arc<rustls::ClientConfig> {
        self.websocket.clone()
    }
}

fn parse_pem(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs: Vec<_> = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| TlsError::NoCertificate(e.to_string()))?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate("no CERTIFICATE block".to_owned()));
    }
    Ok(certs)
}

/// The platform's trust store; Mozilla's roots when it has none (a minimal container).
fn platform_roots() -> RootCertStore {
    let mut roots = RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    }
    roots
}

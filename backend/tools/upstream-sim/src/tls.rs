//! The simulator's TLS side: a test certificate authority generated at start, a server
//! certificate it signs for `localhost` and `127.0.0.1`, and ALPN `h2, http/1.1`, so that
//! clients under test run the production path (TLS, HTTP/2) against the fake upstream.
//!
//! A second, untrusted CA is generated beside it: while the setting `tls_fault` is `untrusted`
//! ([`TlsFaultSwitch`]) new handshakes get a certificate for the same names signed by that CA,
//! so a client trusting [`TestCa::pem`] fails verification; session resumption is refused
//! meanwhile, so a client cannot skip the certificate with a cached session.
//!
//! Nothing is read from or written to disk; a test that needs the CA as a file writes
//! [`TestCa::pem`] itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::{ClientHello, ResolvesServerCert, ServerSessionMemoryCache, StoresServerSessions};
use rustls::sign::CertifiedKey;
use serde::{Deserialize, Serialize};
use tokio_rustls::TlsAcceptor;

/// A TLS failure the TLS listener presents (setting `tls_fault`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TlsFault {
    /// The certificate signed by the test CA.
    #[default]
    None,
    /// A certificate for the same names signed by a CA nobody trusts.
    Untrusted,
}

/// The live value of `tls_fault`, read by the certificate resolver at each handshake.
#[derive(Debug, Default)]
pub struct TlsFaultSwitch(AtomicBool);

impl TlsFaultSwitch {
    pub fn new(fault: TlsFault) -> Self {
        let switch = Self::default();
        switch.set(fault);
        switch
    }

    pub fn set(&self, fault: TlsFault) {
        self.0.store(fault == TlsFault::Untrusted, Ordering::Relaxed);
    }

    fn untrusted(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The test CA of one simulator run (PEM) and the acceptor serving its server certificate.
pub struct TestCa {
    pem: String,
    der: CertificateDer<'static>,
    acceptor: TlsAcceptor,
}

impl TestCa {
    /// A fresh CA and a server certificate for `localhost` / `127.0.0.1` / `::1` (no TLS fault).
    pub fn generate() -> anyhow::Result<Self> {
        Self::generate_with(Arc::new(TlsFaultSwitch::default()))
    }

    /// [`TestCa::generate`] whose handshakes follow `switch`.
    pub fn generate_with(switch: Arc<TlsFaultSwitch>) -> anyhow::Result<Self> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let (ca, trusted) = certified("upstream-sim test CA", &provider)?;
        let (_, untrusted) = certified("upstream-sim untrusted CA", &provider)?;
        let resolver = CertificateSwitch { switch: switch.clone(), trusted, untrusted };
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .context("TLS versions")?
            .with_no_client_auth()
            .with_cert_resolver(Arc::new(resolver));
        config.session_storage = Arc::new(SessionSwitch { switch, sessions: ServerSessionMemoryCache::new(256) });
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Self { pem: ca.pem(), der: ca.der().clone(), acceptor: TlsAcceptor::from(Arc::new(config)) })
    }

    /// The CA certificate, PEM: what a client adds to its roots.
    pub fn pem(&self) -> &str {
        &self.pem
    }

    /// The CA certificate, DER.
    pub fn der(&self) -> &CertificateDer<'static> {
        &self.der
    }

    pub(crate) fn acceptor(&self) -> TlsAcceptor {
        self.acceptor.clone()
    }
}

/// A fresh CA named `ca_name` and the server certificate it signs (chain: leaf, CA).
fn certified(
    ca_name: &str,
    provider: &CryptoProvider,
) -> anyhow::Result<(CertifiedIssuer<'static, KeyPair>, Arc<CertifiedKey>)> {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).context("CA parameters")?;
    ca_params.distinguished_name.push(DnType::CommonName, ca_name);
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().context("CA key")?)
        .context("self-signing the CA")?;
    let names = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
    let mut leaf_params = CertificateParams::new(names).context("server certificate parameters")?;
    leaf_params.distinguished_name.push(DnType::CommonName, "upstream-sim");
    let leaf_key = KeyPair::generate().context("server key")?;
    let leaf = leaf_params.signed_by(&leaf_key, &ca).context("signing the server certificate")?;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let chain = vec![leaf.der().clone(), ca.der().clone()];
    let certified = CertifiedKey::from_der(chain, key, provider).context("server certificate")?;
    Ok((ca, Arc::new(certified)))
}

/// Presents the trusted or the untrusted certificate, by the switch.
#[derive(Debug)]
struct CertificateSwitch {
    switch: Arc<TlsFaultSwitch>,
    trusted: Arc<CertifiedKey>,
    untrusted: Arc<CertifiedKey>,
}

impl ResolvesServerCert for CertificateSwitch {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(if self.switch.untrusted() { self.untrusted.clone() } else { self.trusted.clone() })
    }
}

/// The usual session cache, which resumes nothing while the certificate is untrusted (a
/// resumed session would skip the certificate).
#[derive(Debug)]
struct SessionSwitch {
    switch: Arc<TlsFaultSwitch>,
    sessions: Arc<ServerSessionMemoryCache>,
}

impl StoresServerSessions for SessionSwitch {
    fn put(&self, key: Vec<u8>, value: Vec<u8>) -> bool {
        !self.switch.untrusted() && self.sessions.put(key, value)
    }

    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        if self.switch.untrusted() { None } else { self.sessions.get(key) }
    }

    fn take(&self, key: &[u8]) -> Option<Vec<u8>> {
        if self.switch.untrusted() { None } else { self.sessions.take(key) }
    }

    fn can_cache(&self) -> bool {
        !self.switch.untrusted() && self.sessions.can_cache()
    }
}

//! The simulator's TLS side: a test certificate authority generated at start, a server
//! certificate it signs for `localhost` and `127.0.0.1`, and ALPN `h2, http/1.1`, so that
//! clients under test run the production path (TLS, HTTP/2) against the fake upstream.
//!
//! Nothing is read from or written to disk; a test that needs the CA as a file writes
//! [`TestCa::pem`] itself.

use std::sync::Arc;

use anyhow::Context;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::TlsAcceptor;

/// The test CA of one simulator run (PEM) and the acceptor serving its server certificate.
pub struct TestCa {
    pem: String,
    der: CertificateDer<'static>,
    acceptor: TlsAcceptor,
}

impl TestCa {
    /// A fresh CA and a server certificate for `localhost` / `127.0.0.1` / `::1`.
    pub fn generate() -> anyhow::Result<Self> {
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).context("CA parameters")?;
        ca_params.distinguished_name.push(DnType::CommonName, "upstream-sim test CA");
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
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .context("TLS versions")?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .context("server certificate")?;
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

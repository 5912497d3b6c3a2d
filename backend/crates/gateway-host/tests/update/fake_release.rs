//! A local fake release server serving what `release/build` writes, built in memory.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use aws_lc_rs::signature::Ed25519KeyPair;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use sha2::{Digest, Sha256};

/// A gzip'd tar of `(path, bytes)` entries (mode 0755).
pub fn tar_gz(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
    for (path, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o755);
        header.set_cksum();
        builder.append_data(&mut header, path, *bytes).expect("append");
    }
    let mut gz = builder.into_inner().expect("tar");
    gz.flush().expect("flush");
    gz.finish().expect("gzip")
}

pub fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The platform of this host, as archives name it.
pub fn platform() -> String {
    gateway_host::update::host::platform()
}

/// A release of `binary` (a script standing in for the gateway) as `release/build` lays it out.
pub struct Release {
    pub files: HashMap<String, Vec<u8>>,
}

impl Release {
    pub fn new(version: &str, binary: &[u8], key: Option<&Ed25519KeyPair>) -> Self {
        let platform = platform();
        let asset = format!("switchboard-{version}-{platform}.tar.gz");
        let archive = tar_gz(&[(&format!("switchboard-{version}-{platform}/switchboard"), binary)]);
        let sums = format!("{}  {asset}\n", hex_sha256(&archive));
        let mut files = HashMap::new();
        let manifest = serde_json::json!({
            "name": "switchboard",
            "version": version,
            "checksums": "SHA256SUMS",
            "signature": key.map(|_| "SHA256SUMS.sig"),
            "assets": [{"platform": platform, "os": std::env::consts::OS, "arch": std::env::consts::ARCH,
                        "name": asset, "size": archive.len(), "sha256": hex_sha256(&archive)}],
        });
        if let Some(key) = key {
            files.insert("SHA256SUMS.sig".to_owned(), key.sign(sums.as_bytes()).as_ref().to_vec());
        }
        files.insert("release.json".to_owned(), serde_json::to_vec(&manifest).expect("json"));
        files.insert("SHA256SUMS".to_owned(), sums.into_bytes());
        files.insert(asset, archive);
        Self { files }
    }
}

type Files = Arc<Mutex<HashMap<String, Vec<u8>>>>;

/// Serves a [`Release`] under `/channel/`; files can be replaced while it runs.
pub struct FakeReleaseServer {
    pub addr: std::net::SocketAddr,
    files: Files,
    task: tokio::task::JoinHandle<()>,
}

async fn file(State(files): State<Files>, Path(name): Path<String>) -> axum::response::Response {
    let found = files.lock().expect("lock").get(&name).cloned();
    match found {
        Some(bytes) => bytes.into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

impl FakeReleaseServer {
    pub async fn start(release: Release) -> Self {
        let files = Arc::new(Mutex::new(release.files));
        let router = axum::Router::new().route("/channel/{name}", axum::routing::get(file)).with_state(files.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { addr, files, task }
    }

    pub fn url(&self) -> String {
        format!("http://{}/channel/release.json", self.addr)
    }

    pub fn replace(&self, name: &str, bytes: Vec<u8>) {
        self.files.lock().expect("lock").insert(name.to_owned(), bytes);
    }

    pub fn get(&self, name: &str) -> Vec<u8> {
        self.files.lock().expect("lock").get(name).cloned().unwrap_or_default()
    }
}

impl Drop for FakeReleaseServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

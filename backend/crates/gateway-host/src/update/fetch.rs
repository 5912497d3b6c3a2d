//! Fetching release files next to the configured `release.json`, with size limits; archives are
//! streamed to disk and hashed on the way. Over the gateway's one outbound stack,
//! `gateway-transport` (decision 0341); the release URL is operator configuration, checked at
//! start (`https`, or `http` to loopback when allowed), so no SSRF address check applies.

use std::path::Path;
use std::time::Duration;

use gateway_transport::{HttpClient, HttpRequest, HttpResponse};
use http::HeaderValue;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use super::UpdateError;

/// The largest manifest, checksum or signature file read.
pub const SMALL_FILE_LIMIT: u64 = 1024 * 1024;
/// The largest archive downloaded.
pub const ARCHIVE_LIMIT: u64 = 512 * 1024 * 1024;
/// Longest wait for an answer's headers, and then for each piece of its body.
const READ_TIMEOUT: Duration = Duration::from_secs(60);
const USER_AGENT: &str = concat!("switchboard-self-update/", env!("CARGO_PKG_VERSION"));

/// An HTTP client for one release channel.
#[derive(Clone)]
pub struct ReleaseSource {
    http: HttpClient,
    manifest: url::Url,
}

impl ReleaseSource {
    /// `http` is the process's outbound client (its connector bounds the connect time).
    pub fn new(manifest: url::Url, http: HttpClient) -> Self {
        Self { http, manifest }
    }

    /// The manifest URL without query or credentials (for messages).
    pub fn shown(&self) -> String {
        let mut url = self.manifest.clone();
        url.set_query(None);
        url.set_fragment(None);
        url.to_string()
    }

    /// `release.json` itself.
    pub async fn manifest(&self) -> Result<Vec<u8>, UpdateError> {
        self.get_small(self.manifest.clone(), "release.json").await
    }

    /// A small file (checksums, signature) next to the manifest.
    pub async fn sibling(&self, name: &str) -> Result<Vec<u8>, UpdateError> {
        self.get_small(self.resolve(name)?, name).await
    }

    /// Streams `name` into `dest` (created, must not exist); returns its SHA-256 and size.
    /// `progress` is told the bytes received so far.
    pub async fn download(
        &self,
        name: &str,
        dest: &Path,
        expected_size: Option<u64>,
        mut progress: impl FnMut(u64),
    ) -> Result<([u8; 32], u64), UpdateError> {
        let mut response = self.send(self.resolve(name)?, name).await?;
        let limit = expected_size.unwrap_or(ARCHIVE_LIMIT).min(ARCHIVE_LIMIT);
        if content_length(&response).is_some_and(|len| len > limit) {
            return Err(UpdateError::Verification(format!("{name} is larger than {limit} bytes")));
        }
        let mut file = tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dest)
            .await
            .map_err(|e| UpdateError::Install(format!("cannot create {}: {e}", dest.display())))?;
        let (mut hasher, mut received) = (Sha256::new(), 0u64);
        while let Some(chunk) =
            next_chunk(&mut response).await.map_err(|e| UpdateError::Source(format!("downloading {name}: {e}")))?
        {
            received += chunk.len() as u64;
            if received > limit {
                return Err(UpdateError::Verification(format!("{name} is larger than {limit} bytes")));
            }
            hasher.update(&chunk);
            file.write_all(&chunk)
                .await
                .map_err(|e| UpdateError::Install(format!("writing {}: {e}", dest.display())))?;
            progress(received);
        }
        file.sync_all().await.map_err(|e| UpdateError::Install(format!("syncing {}: {e}", dest.display())))?;
        Ok((hasher.finalize().into(), received))
    }

    fn resolve(&self, name: &str) -> Result<url::Url, UpdateError> {
        self.manifest.join(name).map_err(|e| UpdateError::Source(format!("cannot resolve {name}: {e}")))
    }

    async fn send(&self, url: url::Url, name: &str) -> Result<HttpResponse, UpdateError> {
        let cannot =
            |reason: String| UpdateError::Source(format!("cannot fetch {name} from {}: {reason}", self.shown()));
        let request = HttpRequest::get(url.as_str())
            .map_err(|_| cannot("not a valid URL".to_owned()))?
            .header(http::header::USER_AGENT, HeaderValue::from_static(USER_AGENT));
        let response = match tokio::time::timeout(READ_TIMEOUT, self.http.send(request, None)).await {
            Err(_) => return Err(cannot(format!("no answer within {} s", READ_TIMEOUT.as_secs()))),
            Ok(Err(error)) => return Err(cannot(error.to_string())),
            Ok(Ok(response)) => response,
        };
        let status = response.status;
        if !status.is_success() {
            return Err(UpdateError::Source(format!("{name}: the release source answered {}", status.as_u16())));
        }
        Ok(response)
    }

    async fn get_small(&self, url: url::Url, name: &str) -> Result<Vec<u8>, UpdateError> {
        let mut response = self.send(url, name).await?;
        let mut body = Vec::new();
        while let Some(chunk) =
            next_chunk(&mut response).await.map_err(|e| UpdateError::Source(format!("reading {name}: {e}")))?
        {
            body.extend_from_slice(&chunk);
            if body.len() as u64 > SMALL_FILE_LIMIT {
                return Err(UpdateError::Source(format!("{name} is larger than {SMALL_FILE_LIMIT} bytes")));
            }
        }
        Ok(body)
    }
}

/// The next piece of the body within [`READ_TIMEOUT`]; `None` at its end.
async fn next_chunk(response: &mut HttpResponse) -> Result<Option<bytes::Bytes>, String> {
    match tokio::time::timeout(READ_TIMEOUT, response.chunk()).await {
        Err(_) => Err(format!("nothing arrived for {} s", READ_TIMEOUT.as_secs())),
        Ok(None) => Ok(None),
        Ok(Some(piece)) => piece.map(Some),
    }
}

fn content_length(response: &HttpResponse) -> Option<u64> {
    response.headers.get(http::header::CONTENT_LENGTH)?.to_str().ok()?.parse().ok()
}

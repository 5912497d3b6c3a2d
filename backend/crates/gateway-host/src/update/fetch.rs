//! Fetching release files next to the configured `release.json`, with size limits; archives are
//! streamed to disk and hashed on the way.

use std::path::Path;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use super::UpdateError;

/// The largest manifest, checksum or signature file read.
pub const SMALL_FILE_LIMIT: u64 = 1024 * 1024;
/// The largest archive downloaded.
pub const ARCHIVE_LIMIT: u64 = 512 * 1024 * 1024;

/// An HTTP client for one release channel.
#[derive(Clone)]
pub struct ReleaseSource {
    client: reqwest::Client,
    manifest: url::Url,
}

impl ReleaseSource {
    pub fn new(manifest: url::Url) -> Result<Self, UpdateError> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(Duration::from_secs(60))
            .user_agent(concat!("switchboard-self-update/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| UpdateError::Source(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self { client, manifest })
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
        if response.content_length().is_some_and(|len| len > limit) {
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
            response.chunk().await.map_err(|e| UpdateError::Source(format!("downloading {name}: {e}")))?
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

    async fn send(&self, url: url::Url, name: &str) -> Result<reqwest::Response, UpdateError> {
        let response = self.client.get(url).send().await.map_err(|e| {
            UpdateError::Source(format!("cannot fetch {name} from {}: {}", self.shown(), e.without_url()))
        })?;
        let status = response.status();
        if !status.is_success() {
            return Err(UpdateError::Source(format!("{name}: the release source answered {}", status.as_u16())));
        }
        Ok(response)
    }

    async fn get_small(&self, url: url::Url, name: &str) -> Result<Vec<u8>, UpdateError> {
        let mut response = self.send(url, name).await?;
        let mut body = Vec::new();
        while let Some(chunk) =
            response.chunk().await.map_err(|e| UpdateError::Source(format!("reading {name}: {}", e.without_url())))?
        {
            body.extend_from_slice(&chunk);
            if body.len() as u64 > SMALL_FILE_LIMIT {
                return Err(UpdateError::Source(format!("{name} is larger than {SMALL_FILE_LIMIT} bytes")));
            }
        }
        Ok(body)
    }
}

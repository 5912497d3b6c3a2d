//! Where the dashboard's files come from: the build embedded in the binary, or (in tests) any
//! other source behind the same trait.

use std::borrow::Cow;

/// One file of the dashboard build.
pub struct Asset {
    pub bytes: Cow<'static, [u8]>,
    /// A strong validator of the content (hex SHA-256).
    pub etag: String,
}

/// A read-only set of dashboard files addressed by their path inside `dist`.
pub trait DashboardAssets: Send + Sync + 'static {
    fn get(&self, path: &str) -> Option<Asset>;
}

/// `frontend/dist` as it was when this binary was built (embedded in debug builds too, so
/// tests exercise what ships; see `build.rs`).
#[derive(rust_embed::Embed)]
#[folder = "$SWITCHBOARD_DASHBOARD_DIR"]
#[exclude = ".gitkeep"]
struct Dist;

/// The dashboard build embedded in the binary.
pub struct EmbeddedDashboard;

impl DashboardAssets for EmbeddedDashboard {
    fn get(&self, path: &str) -> Option<Asset> {
        let file = Dist::get(path)?;
        let etag = file.metadata.sha256_hash().iter().map(|b| format!("{b:02x}")).collect();
        Some(Asset { bytes: file.data, etag })
    }
}

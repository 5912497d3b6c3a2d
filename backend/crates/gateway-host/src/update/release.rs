//! The release manifest (`release.json`, written by `release/build`) and choosing the asset
//! for this platform.

use serde::Deserialize;

use super::UpdateError;

/// `release.json`: what one release offers.
#[derive(Debug, Clone, Deserialize)]
pub struct ReleaseManifest {
    pub name: String,
    pub version: String,
    /// The checksum file next to the manifest (`SHA256SUMS`).
    pub checksums: String,
    /// The signature of the checksum file (`SHA256SUMS.sig`), when the release is signed.
    #[serde(default)]
    pub signature: Option<String>,
    pub assets: Vec<ReleaseAsset>,
}

/// One archive of a release.
#[derive(Debug, Clone, Deserialize)]
pub struct ReleaseAsset {
    /// `<os>-<arch>`, e.g. `linux-x86_64`.
    pub platform: String,
    /// The archive's file name, next to the manifest.
    pub name: String,
    #[serde(default)]
    pub size: Option<u64>,
    /// Hex SHA-256; must agree with the checksum file.
    #[serde(default)]
    pub sha256: Option<String>,
}

impl ReleaseManifest {
    /// Parses and checks a manifest: the right product, a version, plain file names.
    pub fn parse(bytes: &[u8]) -> Result<Self, UpdateError> {
        let manifest: Self = serde_json::from_slice(bytes)
            .map_err(|e| UpdateError::Source(format!("release.json is not a release manifest: {e}")))?;
        if manifest.name != "switchboard" {
            return Err(UpdateError::Source(format!("release.json describes {:?}, not switchboard", manifest.name)));
        }
        semver::Version::parse(&manifest.version).map_err(|_| {
            UpdateError::Source(format!("release.json version {:?} is not a version", manifest.version))
        })?;
        let names = std::iter::once(&manifest.checksums)
            .chain(manifest.signature.iter())
            .chain(manifest.assets.iter().map(|a| &a.name));
        for name in names {
            if !is_plain_file_name(name) {
                return Err(UpdateError::Source(format!(
                    "release.json names {name:?}, which is not a plain file name"
                )));
            }
        }
        Ok(manifest)
    }

    /// The archive for `platform`; its name must be `switchboard-<version>-<platform>.tar.gz`
    /// (the checksum file, which may be signed, lists it by that name: the version is bound).
    pub fn asset_for(&self, platform: &str) -> Result<&ReleaseAsset, UpdateError> {
        let asset = self.assets.iter().find(|a| a.platform == platform).ok_or_else(|| {
            UpdateError::Unavailable(format!("release {} has no archive for this platform ({platform})", self.version))
        })?;
        let expected = archive_name(&self.version, platform);
        if asset.name != expected {
            return Err(UpdateError::Source(format!(
                "the {platform} archive is named {:?}, expected {expected:?}",
                asset.name
            )));
        }
        Ok(asset)
    }
}

/// `switchboard-<version>-<platform>.tar.gz`.
pub fn archive_name(version: &str, platform: &str) -> String {
    format!("switchboard-{version}-{platform}.tar.gz")
}

/// The binary's path inside that archive.
pub fn binary_entry(version: &str, platform: &str) -> String {
    format!("switchboard-{version}-{platform}/switchboard")
}

/// Whether `latest` is a newer version than `current` (semver order; unparsable: no).
pub fn is_newer(latest: &str, current: &str) -> bool {
    match (semver::Version::parse(latest), semver::Version::parse(current)) {
        (Ok(latest), Ok(current)) => latest > current,
        _ => false,
    }
}

/// A name that resolves next to the manifest: no separators, no dot segments, printable ASCII.
pub fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && name != "."
        && name != ".."
        && name.bytes().all(|b| b.is_ascii_graphic() && b != b'/' && b != b'\\' && b != b'%' && b != b'?' && b != b'#')
}

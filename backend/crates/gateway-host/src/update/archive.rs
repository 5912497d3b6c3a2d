//! Taking the binary out of a release archive (`.tar.gz`).

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::UpdateError;

/// The largest binary taken out of an archive.
const BINARY_LIMIT: u64 = 512 * 1024 * 1024;

/// Writes the regular file `entry` of the gzip'd tar `archive` to `dest` (created, mode 0755,
/// synced). Blocking: run it on a blocking thread.
pub fn extract_binary(archive: &Path, entry: &str, dest: &Path) -> Result<u64, UpdateError> {
    let file = std::fs::File::open(archive)
        .map_err(|e| UpdateError::Install(format!("cannot open {}: {e}", archive.display())))?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let entries = tar.entries().map_err(|e| UpdateError::Verification(format!("the archive is not a tar.gz: {e}")))?;
    for item in entries {
        let mut item = item.map_err(|e| UpdateError::Verification(format!("the archive is damaged: {e}")))?;
        let path = item.path().map_err(|e| UpdateError::Verification(format!("bad path in the archive: {e}")))?;
        if path.to_str() != Some(entry) {
            continue;
        }
        if !item.header().entry_type().is_file() {
            return Err(UpdateError::Verification(format!("{entry} in the archive is not a regular file")));
        }
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o755)
            .open(dest)
            .map_err(|e| UpdateError::Install(format!("cannot create {}: {e}", dest.display())))?;
        let mut limited = (&mut item).take(BINARY_LIMIT + 1);
        let written = std::io::copy(&mut limited, &mut out)
            .map_err(|e| UpdateError::Install(format!("cannot write {}: {e}", dest.display())))?;
        if written > BINARY_LIMIT {
            return Err(UpdateError::Verification(format!("{entry} is larger than {BINARY_LIMIT} bytes")));
        }
        out.flush()
            .and_then(|()| out.sync_all())
            .map_err(|e| UpdateError::Install(format!("syncing {}: {e}", dest.display())))?;
        return Ok(written);
    }
    Err(UpdateError::Verification(format!("the archive holds no {entry}")))
}

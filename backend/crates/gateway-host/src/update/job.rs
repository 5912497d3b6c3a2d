//! One update run in the background: download, verify, stage, swap, then ask for the restart.
//! Stops (changing nothing) on the shutdown signal or the first failure.

use super::fetch::ReleaseSource;
use super::install::{Installation, reported_version};
use super::release::{ReleaseManifest, binary_entry};
use super::verify::{checksum_for, hex, verify_signature};
use super::{OutcomeResult, Phase, ReleaseCheck, UpdateAction, UpdateError, UpdateOutcome, Updater};

/// Progress events while downloading: one per this many bytes.
const PROGRESS_STEP: u64 = 4 * 1024 * 1024;

pub(super) struct UpdateJob {
    pub updater: Updater,
    pub installation: Installation,
    pub check: ReleaseCheck,
    pub manifest: ReleaseManifest,
    pub outcome: UpdateOutcome,
}

impl UpdateJob {
    pub async fn run(self) {
        let token = self.updater.inner.shutdown.token();
        let download = self.installation.staging("update-download");
        let staged = self.installation.staging("update-new");
        let prepared = tokio::select! {
            prepared = self.prepare(&download, &staged) => prepared,
            () = token.cancelled() => Err(UpdateError::Install("the process is shutting down".into())),
        };
        let _ = tokio::fs::remove_file(&download).await;
        let installed = prepared.and_then(|()| {
            self.installation
                .swap_in(&staged)
                .map_err(|e| UpdateError::Install(format!("cannot swap the new binary in: {e}")))
        });
        match installed {
            Ok(()) => self.restart(),
            Err(error) => {
                let _ = tokio::fs::remove_file(&staged).await;
                self.fail(error).await;
            }
        }
    }

    fn restart(self) {
        let board = &self.updater.inner.board;
        board.push(Phase::Installing, format!("{} installed; the previous binary is kept", self.check.latest_version));
        let (current, outcome) = (self.check.current_version.clone(), self.outcome);
        self.updater.inner.state.update(|state| {
            state.previous_version = Some(current);
            state.last = Some(outcome);
        });
        let expected = Some(self.check.latest_version.clone());
        self.updater.hand_over(self.installation, UpdateAction::Update, true, expected);
    }

    async fn fail(self, error: UpdateError) {
        tracing::warn!(error = %error, "the update stopped; nothing was changed");
        self.updater.inner.board.push(Phase::Failed, error.to_string());
        let outcome = self.outcome.ended(OutcomeResult::Failed, Some(error.to_string()));
        self.updater.inner.state.update(|state| state.last = Some(outcome.clone()));
        self.updater.audit(outcome).await;
        self.updater.release();
    }

    async fn prepare(&self, download: &std::path::Path, staged: &std::path::Path) -> Result<(), UpdateError> {
        let source =
            self.updater.inner.source.as_ref().ok_or_else(|| UpdateError::Unavailable("no release source".into()))?;
        let board = &self.updater.inner.board;
        let asset = self.manifest.asset_for(&self.check.platform)?;
        board.push(Phase::Downloading, format!("reading {}", self.manifest.checksums));
        let sums = source.sibling(&self.manifest.checksums).await?;
        self.verify_checksum_file(source, &sums).await?;
        let sums = String::from_utf8_lossy(&sums);
        let expected = checksum_for(&sums, &asset.name).ok_or_else(|| {
            UpdateError::Verification(format!("{} does not list {}", self.manifest.checksums, asset.name))
        })?;
        if asset.sha256.as_deref().is_some_and(|listed| !listed.eq_ignore_ascii_case(&hex(&expected))) {
            return Err(UpdateError::Verification(format!(
                "release.json and {} disagree about {}",
                self.manifest.checksums, asset.name
            )));
        }

        let total = asset.size;
        board.push_bytes(Phase::Downloading, format!("downloading {}", asset.name), 0, total);
        let mut next = PROGRESS_STEP;
        let (digest, size) = source
            .download(&asset.name, download, total, |received| {
                if received >= next {
                    next = received + PROGRESS_STEP;
                    board.push_bytes(Phase::Downloading, format!("downloading {}", asset.name), received, total);
                }
            })
            .await?;
        board.push_bytes(Phase::Verifying, format!("checking the SHA-256 of {}", asset.name), size, total);
        if digest != expected {
            return Err(UpdateError::Verification(format!(
                "the SHA-256 of {} does not match {}",
                asset.name, self.manifest.checksums
            )));
        }
        if total.is_some_and(|total| total != size) {
            return Err(UpdateError::Verification(format!(
                "{} has {size} bytes, the release says {total:?}",
                asset.name
            )));
        }

        board.push(Phase::Installing, "unpacking the new binary");
        let entry = binary_entry(&self.manifest.version, &self.check.platform);
        let (archive, dest) = (download.to_path_buf(), staged.to_path_buf());
        tokio::task::spawn_blocking(move || super::archive::extract_binary(&archive, &entry, &dest))
            .await
            .map_err(|e| UpdateError::Install(format!("the unpacking task failed: {e}")))??;
        let reported = reported_version(staged).await?;
        if reported != self.check.latest_version {
            return Err(UpdateError::Verification(format!(
                "the new binary says it is {reported}, the release says {}",
                self.check.latest_version
            )));
        }
        board.push(Phase::Installing, format!("the new binary runs here and reports {reported}"));
        Ok(())
    }

    /// With `update.public_key`, the checksum file must carry a valid signature.
    async fn verify_checksum_file(&self, source: &ReleaseSource, sums: &[u8]) -> Result<(), UpdateError> {
        let Some(key) = self.updater.inner.public_key else { return Ok(()) };
        let name = self.manifest.signature.as_deref().ok_or_else(|| {
            UpdateError::Verification("the release is not signed, and update.public_key requires a signature".into())
        })?;
        let signature = source.sibling(name).await?;
        verify_signature(&key, sums, &signature)?;
        self.updater
            .inner
            .board
            .push(Phase::Verifying, format!("{} is signed by update.public_key", self.manifest.checksums));
        Ok(())
    }
}

//! The deployment files (`deploy/`): the Dockerfile's structure, the compose files' promises,
//! and the image's entrypoint exercised without a Docker engine (the same binary, the same
//! environment, a read-only root-like layout). The Compose-schema check, hadolint and
//! actionlint run in `scripts/check-deploy`.

mod compose;
mod dockerfile;
mod entrypoint;
mod files;

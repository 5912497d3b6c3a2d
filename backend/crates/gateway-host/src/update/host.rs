//! Facts about the host the self-update needs, read once at start-up: the platform, whether
//! this is a container, where the running binary is, and the arguments it was started with.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct HostFacts {
    /// `<os>-<arch>` as the release names its archives (`linux-x86_64`).
    pub platform: String,
    /// Why this looks like a container, when it does.
    pub container: Option<String>,
    /// The running binary's resolved path, or why it is unknown.
    pub binary: Result<PathBuf, String>,
    /// The command-line arguments after the program name (the restart passes them on).
    pub args: Vec<OsString>,
}

impl HostFacts {
    /// This process: `/`, its environment, `current_exe`, its arguments.
    pub fn detect() -> Self {
        let env: Vec<(String, String)> = std::env::vars().collect();
        let binary = std::env::current_exe().and_then(std::fs::canonicalize);
        Self::from_parts(Path::new("/"), &env, binary, std::env::args_os().skip(1).collect())
    }

    pub fn from_parts(
        root: &Path,
        env: &[(String, String)],
        binary: std::io::Result<PathBuf>,
        args: Vec<OsString>,
    ) -> Self {
        Self {
            platform: platform(),
            container: container_marker(root, env),
            binary: binary.map_err(|e| format!("the running binary's path is unknown: {e}")),
            args,
        }
    }
}

/// `std::env::consts::OS`-`ARCH`.
pub fn platform() -> String {
    format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH)
}

/// What marks a container: Docker's `/.dockerenv`, Podman's `/run/.containerenv`, the
/// `container` variable (set by our image, Podman, systemd-nspawn) or Kubernetes' service
/// variables. `root` is `/` except in tests.
pub fn container_marker(root: &Path, env: &[(String, String)]) -> Option<String> {
    let var = |name: &str| env.iter().find(|(k, v)| k == name && !v.is_empty()).map(|(_, v)| v.clone());
    if root.join(".dockerenv").exists() {
        return Some("a Docker container (/.dockerenv)".to_owned());
    }
    if root.join("run/.containerenv").exists() {
        return Some("a Podman container (/run/.containerenv)".to_owned());
    }
    if let Some(kind) = var("container") {
        return Some(format!("a container (container={kind})"));
    }
    if var("KUBERNETES_SERVICE_HOST").is_some() {
        return Some("a Kubernetes pod".to_owned());
    }
    None
}

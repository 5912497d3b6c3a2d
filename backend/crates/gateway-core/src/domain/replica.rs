//! Which process runs a request: a replica's stable name and the id of one start of its
//! process. A row carries both, so the rows of a process that died can be recovered by a live
//! one (its heartbeat stopped) or by its own successor (same name, new boot) at start.

use std::fmt;

/// The stable identity of a replica across restarts: `server.replica_name`, by default
/// `<hostname>:<listen port>` (unique on a host, because two processes cannot listen on one port).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReplicaName(String);

impl ReplicaName {
    /// `[A-Za-z0-9._:-]{1,200}`.
    pub fn parse(name: &str) -> Result<Self, String> {
        let valid = !name.is_empty()
            && name.len() <= 200
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
        if valid { Ok(Self(name.to_owned())) } else { Err(format!("{name:?} must be [A-Za-z0-9._:-]{{1,200}}")) }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ReplicaName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One start of a replica's process, random per start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BootId(pub uuid::Uuid);

impl BootId {
    pub fn random() -> Self {
        Self(uuid::Uuid::new_v4())
    }
}

impl fmt::Display for BootId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.simple().fmt(f)
    }
}

/// The process that runs a request, recorded on its row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runner {
    pub replica: ReplicaName,
    pub boot: BootId,
}

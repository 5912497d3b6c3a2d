//! What every crate's configuration section reports when a value breaks one of its rules.
//!
//! Each crate owns its section type (a plain serde struct with its defaults and a `validate`
//! beside it); the binary composes the sections into the file it loads, and the host's loader
//! turns an [`InvalidConfig`] into its `ConfigError`, naming the environment variable when the
//! value came from one. A section names its keys relative to itself; whoever mounts it adds the
//! path with [`InvalidConfig::under`].

/// A value one section refuses: the key (relative to whoever reports it) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid value for `{key}`: {reason}")]
pub struct InvalidConfig {
    pub key: String,
    pub reason: String,
}

impl InvalidConfig {
    pub fn new(key: &str, reason: &str) -> Self {
        Self { key: key.to_owned(), reason: reason.to_owned() }
    }

    /// The same refusal with the key seen from the parent section (`backend_url` under
    /// `providers.openai` is `providers.openai.backend_url`).
    #[must_use]
    pub fn under(mut self, section: &str) -> Self {
        self.key = if self.key.is_empty() { section.to_owned() } else { format!("{section}.{}", self.key) };
        self
    }
}

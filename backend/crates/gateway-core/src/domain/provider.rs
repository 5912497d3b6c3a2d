//! The closed set of upstream providers.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// ChatGPT/Codex accounts signed in with OpenAI OAuth.
    Openai,
    /// xAI Grok subscription accounts.
    Xai,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 2] = [ProviderKind::Openai, ProviderKind::Xai];

    /// The stable name used in the database, the APIs and Redis keys.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Xai => "xai",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProviderKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "openai" => Ok(Self::Openai),
            "xai" => Ok(Self::Xai),
            other => Err(format!("unknown provider `{other}`")),
        }
    }
}

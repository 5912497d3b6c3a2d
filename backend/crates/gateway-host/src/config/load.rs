//! Loading: defaults, then the YAML file, then `SWITCHBOARD_*` environment variables.
//!
//! Environment names are derived from key paths: `server.drain_timeout_seconds` is
//! `SWITCHBOARD_SERVER_DRAIN_TIMEOUT_SECONDS`. A variable whose name starts with a known section
//! (`SWITCHBOARD_SERVER_…`) must name a known key, otherwise it is refused like an unknown key in
//! the file. Other `SWITCHBOARD_*` variables (for example a client's `SWITCHBOARD_KEY`) are not
//! configuration and are left alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use gateway_core::config::InvalidConfig;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{CONFIG_FILE_ENV, ENV_PREFIX};

/// A root configuration the loader fills: its defaults serialise to the full tree of keys (the
/// environment names derive from it) and [`ConfigRoot::validate`] runs every section's rules,
/// naming keys from the root.
pub trait ConfigRoot: Serialize + DeserializeOwned + Default {
    fn validate(&self) -> Result<(), ConfigError>;
}

/// Where the configuration comes from; built by the caller so that tests need no process env.
#[derive(Debug, Clone, Default)]
pub struct ConfigSource {
    pub file: Option<PathBuf>,
    pub env: Vec<(String, String)>,
}

impl ConfigSource {
    /// The file given on the command line (or `SWITCHBOARD_CONFIG`) and the process environment.
    pub fn from_process(file: Option<PathBuf>) -> Self {
        let env: Vec<(String, String)> = std::env::vars().filter(|(k, _)| k.starts_with(ENV_PREFIX)).collect();
        let file = file.or_else(|| {
            env.iter()
                .find(|(k, _)| k == CONFIG_FILE_ENV)
                .map(|(_, v)| PathBuf::from(v))
                .filter(|p| !p.as_os_str().is_empty())
        });
        Self { file, env }
    }
}

/// A configuration problem; its `Display` is one line that names the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read configuration file {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("configuration file {path} is not valid YAML: {reason}")]
    Syntax { path: String, reason: String },
    #[error("unknown configuration key `{key}`{origin}")]
    UnknownKey { key: String, origin: String },
    #[error("invalid value for `{key}`{origin}: {reason}")]
    Invalid { key: String, origin: String, reason: String },
}

/// Another crate's section refused a value; its key must already be seen from the root
/// ([`InvalidConfig::under`]).
impl From<InvalidConfig> for ConfigError {
    fn from(refused: InvalidConfig) -> Self {
        Self::Invalid { key: refused.key, origin: String::new(), reason: refused.reason }
    }
}

impl ConfigError {
    pub fn invalid(key: &str, reason: &str) -> Self {
        Self::Invalid { key: key.to_owned(), origin: String::new(), reason: reason.to_owned() }
    }

    /// The key the error is about, when there is one.
    pub fn key(&self) -> Option<&str> {
        match self {
            Self::UnknownKey { key, .. } | Self::Invalid { key, .. } => Some(key),
            Self::Unreadable { .. } | Self::Syntax { .. } => None,
        }
    }
}

/// Loads and validates the configuration.
pub fn load<C: ConfigRoot>(source: &ConfigSource) -> Result<C, ConfigError> {
    load_with(source, |_| Ok(()))
}

/// Loads and validates the configuration, then runs `check`: rules another crate owns (for
/// example a provider's URL guard), reported like this crate's own, with the environment variable
/// named when the value came from one.
pub fn load_with<C: ConfigRoot>(
    source: &ConfigSource,
    check: impl FnOnce(&C) -> Result<(), ConfigError>,
) -> Result<C, ConfigError> {
    let defaults = serde_json::to_value(C::default()).map_err(|e| ConfigError::invalid("", &e.to_string()))?;
    let mut merged = match &source.file {
        Some(path) => read_file(path)?,
        None => Value::Object(Map::new()),
    };
    let env_origin = apply_env(&mut merged, &defaults, &source.env)?;
    let config: C = serde_path_to_error::deserialize(merged).map_err(|err| {
        let key = err.path().to_string();
        let origin = env_origin.get(&key).map(|name| format!(" (from {name})")).unwrap_or_default();
        let reason = without_quoted_values(&err.into_inner().to_string());
        match unknown_field(&reason) {
            Some(field) => ConfigError::UnknownKey { key: join_key(&key, field), origin },
            None => ConfigError::Invalid { key, origin, reason },
        }
    })?;
    config.validate().and_then(|()| check(&config)).map_err(|err| match err {
        ConfigError::Invalid { key, reason, .. } => {
            let origin = env_origin.get(&key).map(|name| format!(" (from {name})")).unwrap_or_default();
            ConfigError::Invalid { key, origin, reason }
        }
        other => other,
    })?;
    Ok(config)
}

fn read_file(path: &Path) -> Result<Value, ConfigError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError::Unreadable { path: shown.clone(), reason: e.to_string() })?;
    let value: Value = serde_norway::from_str(&text)
        .map_err(|e| ConfigError::Syntax { path: shown.clone(), reason: e.to_string() })?;
    match value {
        Value::Null => Ok(Value::Object(Map::new())),
        Value::Object(_) => Ok(value),
        _ => Err(ConfigError::Syntax { path: shown, reason: "the top level must be a mapping".to_owned() }),
    }
}

/// Applies environment overrides; returns key path → variable name for error messages.
fn apply_env(
    merged: &mut Value,
    defaults: &Value,
    env: &[(String, String)],
) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut leaves = Vec::new();
    collect_leaves(defaults, String::new(), &mut leaves);
    let sections: Vec<String> = match defaults {
        Value::Object(map) => map.keys().map(|k| k.to_ascii_uppercase()).collect(),
        _ => Vec::new(),
    };
    let mut origin = BTreeMap::new();
    for (name, raw) in env {
        let Some(rest) = name.strip_prefix(ENV_PREFIX) else { continue };
        if name == CONFIG_FILE_ENV || !sections.iter().any(|s| rest.starts_with(&format!("{s}_"))) {
            continue;
        }
        let Some((path, default)) = leaves.iter().find(|(path, _)| env_name(path) == *name) else {
            return Err(ConfigError::UnknownKey { key: name.clone(), origin: " (environment variable)".to_owned() });
        };
        // The value itself is never shown: it may be a secret (a master key, a URL's password).
        let value = parse_env_value(raw, default).ok_or_else(|| ConfigError::Invalid {
            key: path.clone(),
            origin: format!(" (from {name})"),
            reason: format!("the value is not a valid {}", kind_name(default)),
        })?;
        set_path(merged, path, value);
        origin.insert(path.clone(), name.clone());
    }
    Ok(origin)
}

/// The environment variable name of a key path.
pub fn env_name(path: &str) -> String {
    format!("{ENV_PREFIX}{}", path.replace('.', "_").to_ascii_uppercase())
}

fn collect_leaves(value: &Value, prefix: String, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                collect_leaves(v, path, out);
            }
        }
        leaf => out.push((prefix, leaf.clone())),
    }
}

fn parse_env_value(raw: &str, default: &Value) -> Option<Value> {
    match default {
        Value::Number(_) => serde_json::from_str::<serde_json::Number>(raw.trim()).ok().map(Value::Number),
        Value::Bool(_) => match raw.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Some(Value::Bool(true)),
            "false" | "0" | "no" | "off" => Some(Value::Bool(false)),
            _ => None,
        },
        Value::Array(_) => serde_json::from_str::<Value>(raw).ok().filter(Value::is_array),
        Value::Null if raw.is_empty() => Some(Value::Null),
        Value::Null => Some(
            serde_json::from_str::<Value>(raw)
                .ok()
                .filter(|v| v.is_number() || v.is_boolean())
                .unwrap_or_else(|| Value::String(raw.to_owned())),
        ),
        Value::String(_) | Value::Object(_) => Some(Value::String(raw.to_owned())),
    }
}

fn kind_name(default: &Value) -> &'static str {
    match default {
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean (true/false)",
        Value::Array(_) => "JSON array",
        _ => "value",
    }
}

fn set_path(root: &mut Value, path: &str, value: Value) {
    let mut node = root;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        if !node.is_object() {
            *node = Value::Object(Map::new());
        }
        let Value::Object(map) = node else { return };
        if parts.peek().is_none() {
            map.insert(part.to_owned(), value);
            return;
        }
        node = map.entry(part.to_owned()).or_insert_with(|| Value::Object(Map::new()));
    }
}

/// serde quotes the offending value (`invalid type: string "k1:…", expected a sequence`); it may
/// be a secret, so every double-quoted part is dropped (`invalid type: string, expected …`).
/// Backticked names (`unknown field `x``, variants) stay: they are key names, not values.
fn without_quoted_values(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len());
    let mut quoted = false;
    let mut escaped = false;
    for c in reason.chars() {
        match (quoted, c) {
            (true, '\\') if !escaped => escaped = true,
            (true, '"') if !escaped => quoted = false,
            (true, _) => escaped = false,
            (false, '"') => {
                quoted = true;
                if out.ends_with(' ') {
                    out.pop();
                }
            }
            (false, _) => out.push(c),
        }
    }
    out
}

/// serde reports unknown fields as "unknown field `x`, expected …"; pull out `x`.
fn unknown_field(reason: &str) -> Option<&str> {
    let rest = reason.strip_prefix("unknown field `")?;
    rest.split('`').next()
}

/// serde_path_to_error already ends the path with the unknown field; older versions did not.
fn join_key(path: &str, field: &str) -> String {
    if path == field || path.ends_with(&format!(".{field}")) {
        path.to_owned()
    } else if path.is_empty() || path == "." {
        field.to_owned()
    } else {
        format!("{path}.{field}")
    }
}

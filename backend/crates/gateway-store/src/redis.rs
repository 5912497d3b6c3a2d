//! The Redis adapter of the coordination ports (`gateway_core::coordination`).
//!
//! Every read-modify-write is one Lua script (`redis/scripts/*.lua`, embedded at build time),
//! sent as EVALSHA and re-sent as EVAL when the server answers NOSCRIPT (a restarted or flushed
//! server). Scripts read the clock with Redis `TIME`, so every replica compares deadlines
//! against one clock. Key layout and script contracts: `docs/coordination.md`.
//!
//! Connection: one shared multiplexed connection (concurrent calls are pipelined on it), opened
//! lazily and dropped on the first connection-level error; the next call reconnects. No pool
//! check-out PING, so a hot-path call is exactly one round trip. While Redis is down every call
//! fails fast with [`CoordinationError::Unavailable`] or [`CoordinationError::Timeout`].

mod acquire;
mod admin_sessions;
mod affinity;
mod circuit;
mod connection;
mod continuation;
mod cooldown;
mod heartbeat;
mod in_flight;
mod keys;
mod leader_lease;
mod login_throttle;
mod notifications;
mod oauth_pending;
mod reply;
mod script;
mod transcripts;

use std::time::Duration;

use gateway_core::coordination::CoordinationError;

use self::connection::SharedConnection;
use self::keys::KeyLayout;
use self::script::Scripts;

/// Redis connection settings, resolved from the `redis` config section. `Debug` redacts the
/// URL's user name and password.
#[derive(Clone)]
pub struct RedisSettings {
    /// `redis://host:port/db`.
    pub url: String,
    /// Namespace of every key and channel; no braces or whitespace.
    pub prefix: String,
    /// Limit for opening a connection.
    pub connect_timeout: Duration,
    /// Limit for one command/script reply.
    pub command_timeout: Duration,
}

impl std::fmt::Debug for RedisSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSettings")
            .field("url", &gateway_core::redaction::url_userinfo_redacted(&self.url))
            .field("prefix", &self.prefix)
            .field("connect_timeout", &self.connect_timeout)
            .field("command_timeout", &self.command_timeout)
            .finish()
    }
}

impl RedisSettings {
    pub fn new(url: impl Into<String>, prefix: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            prefix: prefix.into(),
            connect_timeout: Duration::from_secs(1),
            command_timeout: Duration::from_secs(1),
        }
    }
}

/// The Redis coordination adapter. Cheap to share behind an `Arc`.
pub struct RedisCoordination {
    connection: SharedConnection,
    keys: KeyLayout,
    scripts: Scripts,
    settings: RedisSettings,
}

impl RedisCoordination {
    /// Validates the settings. Does not connect: the first call does, so the gateway starts
    /// (failing closed) while Redis is still down.
    pub fn new(settings: RedisSettings) -> Result<Self, CoordinationError> {
        let keys = KeyLayout::new(&settings.prefix)?;
        let connection = SharedConnection::new(&settings.url, settings.connect_timeout, settings.command_timeout)?;
        Ok(Self { connection, keys, scripts: Scripts::load(), settings })
    }

    pub fn settings(&self) -> &RedisSettings {
        &self.settings
    }

    /// Round-trips a PING (readiness probe).
    pub async fn ping(&self) -> Result<(), CoordinationError> {
        let reply: String = self.connection.query(&::redis::cmd("PING")).await?;
        if reply == "PONG" { Ok(()) } else { Err(CoordinationError::Protocol(format!("PING answered {reply}"))) }
    }
}

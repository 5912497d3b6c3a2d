//! The `engine` section: the data plane's tunables, with their defaults and rules.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::EngineSettings;
use crate::config::InvalidConfig;
use crate::coordination::CircuitPolicy;
use crate::domain::Runner;

/// The data plane's tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineConfig {
    /// Most upstream calls one request makes before it is committed to the client.
    pub max_attempts: u32,
    /// TTL of admission and account slots and of the replica heartbeat; the heartbeat renews
    /// every held slot each third of it, so a dead process's slots are free within one TTL.
    pub lease_ttl_seconds: u64,
    /// A request row still `running` this long after its start is recovered as `incomplete`
    /// (the backstop behind the heartbeat-based recovery).
    pub request_deadline_seconds: u64,
    /// Longest a request waits for an account's request interval instead of failing.
    pub max_interval_wait_ms: u64,
    /// Longest an attempt waits for the upstream's response head (every provider); past it the
    /// attempt fails as a timeout. Also bounds how long a half-open circuit probe blocks.
    pub header_timeout_seconds: u64,
    /// Bounds of the in-process observation queue.
    pub observation_queue_capacity: usize,
    pub observation_queue_bytes: usize,
    /// How long the flush worker waits for more observations before writing a batch.
    pub observation_flush_linger_ms: u64,
    /// How often each replica polls `config_revision` (the correctness path of convergence).
    pub snapshot_poll_ms: u64,
    /// A full snapshot reload at least this often, for facts that do not bump the revision.
    pub snapshot_reload_seconds: u64,
    /// Consecutive infrastructure failures (connect failures, 5xx) of a provider that open its
    /// circuit.
    pub circuit_failure_threshold: u32,
    /// How long an open circuit refuses requests before one probe may go through.
    pub circuit_open_seconds: u64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            lease_ttl_seconds: 30,
            request_deadline_seconds: 3600,
            max_interval_wait_ms: 5000,
            header_timeout_seconds: 90,
            observation_queue_capacity: 65_536,
            observation_queue_bytes: 64 * 1024 * 1024,
            observation_flush_linger_ms: 250,
            snapshot_poll_ms: 2000,
            snapshot_reload_seconds: 60,
            circuit_failure_threshold: 5,
            circuit_open_seconds: 30,
        }
    }
}

impl EngineConfig {
    /// Rules serde cannot express; keys are relative to the section (`max_attempts`).
    pub fn validate(&self) -> Result<(), InvalidConfig> {
        if self.max_attempts == 0 || self.max_attempts > 16 {
            return Err(InvalidConfig::new("max_attempts", "must be between 1 and 16"));
        }
        if !(3..=3600).contains(&self.lease_ttl_seconds) {
            return Err(InvalidConfig::new("lease_ttl_seconds", "must be between 3 and 3600"));
        }
        if self.request_deadline_seconds < 60 {
            return Err(InvalidConfig::new("request_deadline_seconds", "must be at least 60"));
        }
        if !(1..=3600).contains(&self.header_timeout_seconds) {
            return Err(InvalidConfig::new("header_timeout_seconds", "must be between 1 and 3600"));
        }
        if self.observation_queue_capacity == 0 || self.observation_queue_bytes < 1024 * 1024 {
            return Err(InvalidConfig::new(
                "observation_queue_bytes",
                "the observation queue needs a capacity of at least 1 and 1 MiB",
            ));
        }
        if !(1..=1000).contains(&self.circuit_failure_threshold) {
            return Err(InvalidConfig::new("circuit_failure_threshold", "must be between 1 and 1000"));
        }
        if !(1..=3600).contains(&self.circuit_open_seconds) {
            return Err(InvalidConfig::new("circuit_open_seconds", "must be between 1 and 3600"));
        }
        if self.snapshot_poll_ms < 100 {
            return Err(InvalidConfig::new("snapshot_poll_ms", "must be at least 100"));
        }
        Ok(())
    }

    /// The engine's settings for this process (`runner` is recorded on every request row).
    pub fn settings(&self, runner: Option<Runner>) -> EngineSettings {
        EngineSettings {
            max_attempts: self.max_attempts,
            lease_ttl: Duration::from_secs(self.lease_ttl_seconds),
            max_interval_wait: Duration::from_millis(self.max_interval_wait_ms),
            header_timeout: Duration::from_secs(self.header_timeout_seconds),
            request_deadline: Duration::from_secs(self.request_deadline_seconds),
            runner,
            circuit: CircuitPolicy {
                failure_threshold: self.circuit_failure_threshold,
                open_for: Duration::from_secs(self.circuit_open_seconds),
            },
            ..EngineSettings::default()
        }
    }
}
